/**
 * Ids share their leading characters (a timestamp), so a job is told apart by the end of its id,
 * which is random: "song.mp3 #k3X9aQ". Used wherever a job is named (jobs, ledger, deliveries).
 */
export function shortId(id: string): string {
  return `#${id.slice(-6)}`;
}

/** A link to a job by its title, with its short id to tell jobs of the same name apart. */
export function JobLink({ id, title }: { id: string; title: string | null }) {
  return (
    <a href={`/jobs/${encodeURIComponent(id)}`}>
      {title ?? 'Job'} <span class="muted short-id">{shortId(id)}</span>
    </a>
  );
}
