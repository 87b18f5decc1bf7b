interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export function Pager({
  pagination: p,
  onOffset,
  label,
}: {
  pagination: Pagination;
  onOffset: (offset: number) => void;
  label: string;
}) {
  if (p.total === 0) return null;
  const first = p.offset + 1;
  const last = Math.min(p.total, p.offset + p.limit);
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={p.offset === 0} onClick={() => onOffset(Math.max(0, p.offset - p.limit))}>
        Previous
      </button>
      <span>
        {first}–{last} of {p.total}
      </span>
      <button type="button" disabled={!p.hasMore} onClick={() => onOffset(p.offset + p.limit)}>
        Next
      </button>
    </nav>
  );
}
