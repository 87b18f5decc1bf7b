import { LedgerPage, Overview, PageQuery } from '../../contract/dashboard.ts';
import { formatBalance, wholeMinutes } from '../../domain/credits.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { getBalance } from '../../store/credits.ts';
import { chargedSecondsByDay, listLedgerPage } from '../../store/ledger.ts';
import { jobTitles } from '../../jobs/present/job-title.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };
const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

/** The last `days` UTC dates, oldest first, ending today. */
export function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

export function accountRoutes(rt: Runtime) {
  return [
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/overview`,
      summary: 'Balance and charged seconds per day over the last 30 days',
      status: 200,
      response: Overview,
      handler: async ({ request }) => {
        const { accountId } = sessionOf(request);
        const days = lastDays(new Date(), USAGE_DAYS);
        const [balance, charged] = await Promise.all([
          getBalance(rt.db, accountId),
          chargedSecondsByDay(rt.db, accountId, `${days[0]}T00:00:00.000Z`),
        ]);
        const seconds = balance?.seconds ?? 0;
        return {
          balance: {
            balanceSeconds: seconds,
            balanceMinutes: wholeMinutes(seconds),
            balanceFormatted: formatBalance(seconds),
          },
          usage: days.map((date) => ({ date, seconds: charged.get(date) ?? 0 })),
          metering: rt.config.metering,
        };
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/ledger`,
      summary: 'The credit ledger, newest first',
      query: PageQuery,
      status: 200,
      response: LedgerPage,
      handler: async ({ request, query }) => {
        const accountId = sessionOf(request).accountId;
        const { lines, total } = await listLedgerPage(rt.db, accountId, query.limit, query.offset);
        const titles = await jobTitles(
          rt.db,
          accountId,
          lines.map((l) => l.jobId),
        );
        return {
          entries: lines.map((l) => ({
            id: l.id,
            type: l.kind.toUpperCase() as 'GRANT' | 'HOLD' | 'CHARGE' | 'RELEASE' | 'DEDUCT',
            seconds: l.seconds,
            jobId: l.jobId,
            jobKind: l.jobKind,
            jobTitle: l.jobId ? (titles.get(l.jobId) ?? null) : null,
            note: l.note,
            createdAt: l.createdAt,
          })),
          pagination: {
            total,
            limit: query.limit,
            offset: query.offset,
            hasMore: query.offset + lines.length < total,
          },
        };
      },
    }),
  ];
}
