import { z } from 'zod';
import { Timestamp } from './common.ts';

export const Balance = z
  .object({
    balanceSeconds: z.number().int(),
    balanceMinutes: z.number().int(),
    balanceFormatted: z.string(),
    updatedAt: Timestamp,
  })
  .meta({ id: 'Balance' });
