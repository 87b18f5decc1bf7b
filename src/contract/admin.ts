import { z } from 'zod';
import { JOB_KINDS } from '../domain/job-kinds.ts';
import { OffsetPagination, Timestamp } from './common.ts';
import { EmailAddress, plainText } from './text.ts';

/**
 * The operator's admin API (`/v1/admin/*`, admin accounts' keys only) and the dashboard's admin
 * pages, which answer the same shapes.
 */

export const MIN_ADMIN_PASSWORD_LENGTH = 10;
/** Large enough for any real grant, small enough that sums stay exact integers. */
export const MAX_GRANT_SECONDS = 1_000_000_000;

const Note = plainText(z.string().trim().min(1).max(500));

export const CreateAccountRequest = z
  .object({
    email: EmailAddress,
    password: z
      .string()
      .min(MIN_ADMIN_PASSWORD_LENGTH)
      .max(1024)
      .optional()
      .meta({ description: 'A dashboard password; without one the account can use API keys only.' }),
  })
  .meta({ id: 'CreateAccountRequest' });

export const AdminAccount = z
  .object({
    id: z.string(),
    email: z.string(),
    isAdmin: z.boolean(),
    disabled: z.boolean(),
    disabledAt: Timestamp.nullable(),
    balanceSeconds: z.number().int(),
    activeKeys: z.number().int(),
    createdAt: Timestamp,
  })
  .meta({ id: 'AdminAccount' });

export const AdminAccountList = z
  .object({ accounts: z.array(AdminAccount), pagination: OffsetPagination })
  .meta({ id: 'AdminAccountList' });

export const AccountListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
  q: z
    .string()
    .trim()
    .max(320)
    .optional()
    .meta({ description: 'Only accounts whose email contains this text (case-insensitive).' }),
});

export const GrantCreditsRequest = z
  .object({
    seconds: z
      .number()
      .int()
      .min(-MAX_GRANT_SECONDS)
      .max(MAX_GRANT_SECONDS)
      .refine((n) => n !== 0, 'must not be 0')
      .meta({ description: 'Credits (seconds of audio) to add; negative takes them back, never below zero.' }),
    note: Note.meta({ description: "Why: recorded with the movement in the account's ledger." }),
  })
  .meta({ id: 'GrantCreditsRequest' });

export const CreditsGranted = z
  .object({
    accountId: z.string(),
    /** What moved: the seconds asked, or less for a take-back that met the bottom of the balance. */
    appliedSeconds: z.number().int(),
    balanceSeconds: z.number().int(),
    balanceMinutes: z.number().int(),
    balanceFormatted: z.string(),
    updatedAt: Timestamp,
  })
  .meta({ id: 'CreditsGranted' });

export const CreateAccountKeyRequest = z
  .object({ name: plainText(z.string().trim().min(1).max(100)).optional() })
  .optional()
  .meta({ id: 'CreateAccountKeyRequest' });

export const AccountKeyCreated = z
  .object({
    id: z.string(),
    accountId: z.string(),
    name: z.string().nullable(),
    prefix: z.string(),
    key: z.string().meta({ description: 'The API key: shown in this answer only, stored hashed.' }),
    createdAt: Timestamp,
  })
  .meta({ id: 'AccountKeyCreated' });

/** A day (`2026-11-01`, from its start UTC) or an ISO date-time. */
const Instant = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

export const UsageQuery = z.object({
  from: Instant.optional().meta({ description: 'Start of the period (inclusive); default 30 days before `to`.' }),
  to: Instant.optional().meta({ description: 'End of the period (exclusive); default now.' }),
});

const KindUsage = z.object({
  jobs: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  chargedSeconds: z.number().int(),
});

export const AccountUsage = z
  .object({
    accountId: z.string(),
    from: Timestamp,
    to: Timestamp,
    chargedSeconds: z.number().int(),
    grantedSeconds: z.number().int(),
    deductedSeconds: z.number().int(),
    byKind: z.partialRecord(z.enum([...JOB_KINDS, 'deleted']), KindUsage).meta({
      description: 'Per job kind: jobs created in the period and seconds charged in it (deleted: jobs since deleted).',
    }),
  })
  .meta({ id: 'AccountUsage' });

export type AdminAccountBody = z.infer<typeof AdminAccount>;
export type AdminAccountListBody = z.infer<typeof AdminAccountList>;
export type GrantCreditsRequestBody = z.input<typeof GrantCreditsRequest>;
export type CreditsGrantedBody = z.infer<typeof CreditsGranted>;
export type AccountKeyCreatedBody = z.infer<typeof AccountKeyCreated>;
export type AccountUsageBody = z.infer<typeof AccountUsage>;
export type CreateAccountRequestBody = z.input<typeof CreateAccountRequest>;
