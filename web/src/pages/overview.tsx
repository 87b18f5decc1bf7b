import { useState } from 'preact/hooks';
import type { LedgerPageBody, OverviewBody } from '../../../src/contract/dashboard.ts';
import { dateTime, KIND_LABEL } from '../format.ts';
import { useData } from '../use-data.ts';
import { Pager } from './pager.tsx';
import { JobLink, shortId } from '../job-label.tsx';

const PAGE = 20;

export function Overview() {
  const overview = useData<OverviewBody>('/overview');
  const [offset, setOffset] = useState(0);
  const ledger = useData<LedgerPageBody>(`/ledger?limit=${PAGE}&offset=${offset}`);
  const b = overview.data?.balance;

  return (
    <>
      <h1>Overview</h1>
      {overview.error && (
        <p class="error" role="alert">
          {overview.error.message}
        </p>
      )}
      {overview.data && !overview.data.metering && (
        <p class="notice" role="status">
          Metering is off on this server: jobs neither hold nor charge credits, so the balance moves only by grants.
        </p>
      )}
      <section class="cards" aria-label="Balance">
        <div class="card stat">
          <span class="label">Balance</span>
          <strong class="big">{b ? b.balanceFormatted : '…'}</strong>
        </div>
        <div class="card stat">
          <span class="label">Minutes</span>
          <strong class="big">{b ? b.balanceMinutes : '…'}</strong>
        </div>
        <div class="card stat">
          <span class="label">Seconds</span>
          <strong class="big">{b ? b.balanceSeconds : '…'}</strong>
        </div>
      </section>
      <h2>Usage, last 30 days</h2>
      {overview.data && <UsageChart usage={overview.data.usage} />}
      <h2>Credit ledger</h2>
      <p class="muted">
        A grant adds seconds; creating a job holds its estimated seconds; the charge settles the hold at the measured
        length, and a release gives back what a failed or shorter job did not use. A deduct is credit an admin took
        back.
      </p>
      {ledger.error && (
        <p class="error" role="alert">
          {ledger.error.message}
        </p>
      )}
      <div class="table-wrap">
        <table class="cards-on-phone">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Type</th>
              <th scope="col" class="num">
                Seconds
              </th>
              <th scope="col">Job</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {ledger.data?.entries.map((e) => (
              <tr key={e.id}>
                <td data-label="When">{dateTime(e.createdAt)}</td>
                <td data-label="Type">
                  <span class={`badge ledger-${e.type.toLowerCase()}`}>{e.type}</span>
                </td>
                <td data-label="Seconds" class="num">
                  {e.seconds}
                </td>
                <td data-label="Job">
                  {e.jobId && e.jobTitle !== null && <JobLink id={e.jobId} title={e.jobTitle} />}
                  {e.jobId && e.jobTitle === null && (
                    <span class="muted">
                      Deleted {e.jobKind ? KIND_LABEL[e.jobKind]?.toLowerCase() : ''} job {shortId(e.jobId)}
                    </span>
                  )}
                  {!e.jobId && '—'}
                </td>
                <td data-label="Note">{e.note ?? ''}</td>
              </tr>
            ))}
            {ledger.data?.entries.length === 0 && (
              <tr>
                <td colSpan={5}>No credit movements yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {ledger.data && <Pager pagination={ledger.data.pagination} onOffset={setOffset} label="Ledger pages" />}
    </>
  );
}

function UsageChart({ usage }: { usage: OverviewBody['usage'] }) {
  const max = Math.max(60, ...usage.map((d) => d.seconds));
  const total = usage.reduce((n, d) => n + d.seconds, 0);
  const w = 600;
  const h = 120;
  const step = w / Math.max(1, usage.length);
  return (
    <figure class="card usage">
      <svg viewBox={`0 0 ${w} ${h + 16}`} role="img" aria-label={`Charged seconds per day; ${total} s in total`}>
        {usage.map((d, i) => {
          const bh = (d.seconds / max) * h;
          return (
            <rect key={d.date} x={i * step + 1} y={h - bh} width={Math.max(1, step - 2)} height={bh} class="bar">
              <title>
                {d.date}: {d.seconds} s
              </title>
            </rect>
          );
        })}
        <line x1={0} x2={w} y1={h} y2={h} class="axis" />
        {usage.length > 0 && (
          <>
            <text x={0} y={h + 14} class="tick">
              {usage[0]?.date}
            </text>
            <text x={w} y={h + 14} class="tick" text-anchor="end">
              {usage.at(-1)?.date}
            </text>
          </>
        )}
      </svg>
      <figcaption>
        {total} seconds charged in the last 30 days (peak day {Math.max(0, ...usage.map((d) => d.seconds))} s).
      </figcaption>
    </figure>
  );
}
