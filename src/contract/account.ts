import { z } from 'zod';
import { Timestamp } from './common.ts';

export const Balance = z
  .object({
    balanceSeconds: z.number().int(),
    balanceMinutes: z.number().int(),
    balanceFormatted: z.string(),
    updatedAt: Timestamp,
    metering: z.enum(['on', 'off']).meta({
      description:
        'Stemforge: `off` where the operator turned metering off (METERING=off): jobs neither hold nor charge credits, so the balance moves only by grants.',
    }),
  })
  .meta({ id: 'Balance' });
