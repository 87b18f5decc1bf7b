import type { JobKind } from '../domain/job-kinds.ts';
import type { JobStatusValue, ProgressPhase } from '../domain/vocabulary.ts';
import type { Kysely, Transaction } from 'kysely';

/**
 * Database tables. Portable across SQLite and PostgreSQL: ids are text, timestamps are ISO-8601
 * text (sortable), booleans are integers 0/1 and JSON documents are text.
 */
export interface AccountsTable {
  id: string;
  email: string;
  created_at: string;
  /** scrypt hash (see src/accounts/password.ts); null: no dashboard sign-in yet. */
  password_hash: string | null;
  /** 1: an operator, who reaches /v1/admin (the first account is one). */
  is_admin: number;
  /** Set while an admin has the account disabled: its keys and sessions answer 403. */
  disabled_at: string | null;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the cookie's token; the token itself is never stored. */
  id: string;
  account_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** First characters of the key, shown to operators and used to narrow the lookup. */
  prefix: string;
  /** A label given in the dashboard; null for keys made by the CLI or the first start. */
  name: string | null;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface BalancesTable {
  account_id: string;
  balance_seconds: number;
  updated_at: string;
}

/** `deduct`: an admin took credit back (a negative grant). */
export type LedgerKind = 'grant' | 'hold' | 'charge' | 'release' | 'deduct';

export interface CreditLedgerTable {
  id: string;
  account_id: string;
  kind: LedgerKind;
  /** Magnitude of the movement in seconds (always >= 0). */
  seconds: number;
  /** Effect on the available balance: grant +, hold -, release +, charge 0 or - (beyond the hold). */
  delta_seconds: number;
  job_id: string | null;
  note: string | null;
  created_at: string;
}

export interface UploadsTable {
  id: string;
  account_id: string;
  file_name: string;
  content_type: string;
  storage_key: string;
  /**
   * `pending`: granted, its file to be PUT through this API; `uploaded`: received and measured;
   * `direct`: granted for a PUT straight to the blob store (scale-out on S3), so never seen or
   * measured here: every job from it is measured by the worker before anything is charged.
   */
  status: 'pending' | 'uploaded' | 'direct';
  size_bytes: number | null;
  duration_seconds: number | null;
  created_at: string;
  expires_at: string;
  uploaded_at: string | null;
}

export type { JobKind, JobStatusValue };

export interface JobsTable {
  id: string;
  account_id: string;
  kind: JobKind;
  status: JobStatusValue;
  progress: number;
  /** What the job is doing now (`PROGRESS_PHASES`); null for rows written before phases existed. */
  progress_phase: ProgressPhase | null;
  /** Kind-specific input description (file name, duration, size; video/track info). */
  input_json: string;
  /** outputType, quality, outputFormat, denoiseVocals. */
  options_json: string;
  metadata_json: string | null;
  /** Blob key of the input file once it is in storage (null while a download is pending). */
  source_key: string | null;
  duration_seconds: number | null;
  credits_required: number | null;
  credits_charged: number | null;
  error_message: string | null;
  /** A failed job's error code (`errorDetails.code`). */
  error_code: string | null;
  /** Stem name -> stored output (blob key, download file name, content type). */
  outputs_json: string | null;
  audio_metadata_json: string | null;
  /** Attempts that ended in an error (the retry budget). */
  attempts: number;
  /** Attempts cut by a process dying (their lease taken over), all of them. */
  crashes: number;
  /** How far the running stage's work is kept by a checkpoint (separation: segments); only raised. */
  work_kept: number;
  /** `work_kept` when the last death was taken over (null: none yet). */
  kept_at_crash: number | null;
  /** Deaths since the work kept last moved past the previous death's place; bounded by JOB_MAX_CRASHES. */
  stalled_crashes: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** When the current lease was taken (null: never claimed). */
  claimed_at: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  /** The name its owner gave it in the dashboard; null shows the file name or the media title. */
  name: string | null;
  /** When its owner chose to keep it past the retention time (the sweeper skips it); null: not kept. */
  kept_at: string | null;
  /** Bytes of its files when kept (counted against the account's keep limit); null: not kept. */
  kept_bytes: number | null;
}

/** The stem player's settings of one job for one account (JSON of `PlayerSettings`, contract/dashboard.ts). */
export interface PlayerSettingsTable {
  account_id: string;
  job_id: string;
  settings_json: string;
  updated_at: string;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  events_json: string;
  /** Needed in clear to sign deliveries; never returned after creation. */
  secret: string;
  is_active: number;
  fail_count: number;
  last_error: string | null;
  last_called_at: string | null;
  created_at: string;
  /** Deleted webhooks are kept (soft delete) so pending deliveries can be skipped, not orphaned. */
  deleted_at: string | null;
  /** Set for a job's `callbackUrl`: a webhook bound to that job only, never listed or counted. */
  job_id: string | null;
}

export type DeliveryStatus = 'pending' | 'sending' | 'done' | 'skipped';

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  job_id: string;
  event: string;
  status: DeliveryStatus;
  created_at: string;
  sent_at: string | null;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  /** The process that claimed it (`workerId`); a claim of a dead process is sent again. */
  claimed_by: string | null;
  /**
   * The event's body (JSON) as it was when the job's state committed, so a re-send is
   * byte-identical; null on rows written before it was kept (their body is built at send time).
   */
  payload: string | null;
}

/** One row per model a worker process has; refreshed by the worker's heartbeat. */
export interface WorkerModelsTable {
  worker_id: string;
  model: string;
  last_seen_at: string;
}

export type IdempotencyStatus = 'running' | 'done';

/** A client's Idempotency-Key: the request it first came with and, once answered, the answer. */
export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  /** Which claim holds the key while it runs (a takeover of a stale claim gets a new one). */
  claim_id: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  request_hash: string;
  status: IdempotencyStatus;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  /** A `running` claim older than this was left by a crashed process and may be taken over. */
  locked_until: string;
  expires_at: string;
}

export interface Database {
  worker_models: WorkerModelsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  jobs: JobsTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  balances: BalancesTable;
  credit_ledger: CreditLedgerTable;
  uploads: UploadsTable;
  sessions: SessionsTable;
  player_settings: PlayerSettingsTable;
}

export type Db = Kysely<Database>;
/** A database handle or an open transaction: repositories accept either. */
export type DbOrTx = Kysely<Database> | Transaction<Database>;
