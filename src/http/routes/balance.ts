import { defineRoute } from '../../routing/route.ts';
import { Balance } from '../../contract/account.ts';
import { getBalance } from '../../store/credits.ts';
import { formatBalance, wholeMinutes } from '../../domain/credits.ts';
import type { Runtime } from '../../runtime.ts';

export function balanceRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/balance',
      summary: 'Read the account balance',
      description:
        'With METERING=off the balance is the one stored, which jobs never take from (grants still add to it), and metering is "off".',
      tag: 'Account',
      auth: 'apiKey',
      status: 200,
      response: Balance,
      handler: async ({ auth }) => {
        const b = await getBalance(rt.db, auth.accountId);
        const seconds = b?.seconds ?? 0;
        return {
          balanceSeconds: seconds,
          balanceMinutes: wholeMinutes(seconds),
          balanceFormatted: formatBalance(seconds),
          updatedAt: b?.updatedAt ?? new Date().toISOString(),
          metering: rt.config.metering ? ('on' as const) : ('off' as const),
        };
      },
    }),
  ];
}
