import { isIP } from 'node:net';
import { z } from 'zod';
import { isEmailAddress } from '../domain/safe-text.ts';
import { parseModelChoices } from '../domain/model-choices.ts';
import { EXECUTION_PROVIDERS } from '../domain/vocabulary.ts';
import { STORAGE_BACKEND_NAMES } from '../storage/backends.ts';

/**
 * The environment variables the service reads, as one zod schema: names, types, ranges and
 * defaults. `src/config.ts` turns the parsed values into the Config; docs/configuration.md's table
 * documents each variable (test/unit/deploy-files.test.ts compares the two).
 */

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const num = (min: number) => z.coerce.number().min(min);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const envSchema = z.object({
  STEMFORGE_MODE: z.enum(['embedded', 'scale-out']).default('embedded'),
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  STEMFORGE_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalString,
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  STEMFORGE_SIGNING_SECRET: optionalString.pipe(z.string().min(32).optional()),
  MAX_FILE_SIZE_MB: num(0.001).default(50),
  MAX_DURATION_MINUTES: num(0.1).default(60),
  MIN_DURATION_SECONDS: num(0).default(5),
  RATE_LIMIT_PER_MINUTE: int(1).default(60),
  FREE_CREDIT_SECONDS: int(0).default(300),
  PURCHASE_URL: z.url().default('https://github.com/stemforge/stemforge#credits'),
  /** `off` for a personal install: jobs hold and charge nothing (docs/admin.md, "Metering off"). */
  METERING: z.enum(['on', 'off']).default('on'),
  ALLOW_PRIVATE_URLS: bool.default(false),
  SOURCE_FETCH_TIMEOUT_MS: int(100).default(60_000),
  SOURCE_MAX_REDIRECTS: int(0, 20).default(5),
  WEBHOOK_TIMEOUT_MS: int(10).default(10_000),
  WORKER_CONCURRENCY: int(1, 64).default(1),
  DOWNLOAD_CONCURRENCY: int(1, 64).default(2),
  /** Overrides every job kind's attempts (`src/domain/job-kinds.ts`) when set. */
  JOB_MAX_ATTEMPTS: int(1, 20).optional(),
  JOB_RETRY_BASE_MS: int(0).default(5_000),
  /** Attempts of a job cut by a process dying (kill -9, out of memory) before the job is FAILED. */
  JOB_MAX_CRASHES: int(1, 100).default(3),
  OUTPUT_RETENTION_HOURS: num(0.001).default(24),
  /** What one account may keep past retention (the dashboard's Keep), in MiB of job files; 0: Keep is off. */
  KEEP_LIMIT_MB: num(0).default(3072),
  /** How often a running process sweeps the temporary places for what dead processes left. */
  ORPHAN_SWEEP_SECONDS: int(5, 86_400).default(300),
  REDIS_URL: optionalString.pipe(z.url().optional()),
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w.-]{1,64}$/)
    .default('stemforge'),
  STORAGE: z.enum(STORAGE_BACKEND_NAMES).default('disk'),
  S3_BUCKET: optionalString,
  S3_REGION: z.string().default('us-east-1'),
  S3_ENDPOINT: optionalString.pipe(z.url().optional()),
  S3_PUBLIC_ENDPOINT: optionalString.pipe(z.url().optional()),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: bool.default(true),
  STEMFORGE_MODELS_DIR: optionalString,
  STEMFORGE_CACHE_DIR: optionalString,
  ORT_EXECUTION_PROVIDER: z.enum(EXECUTION_PROVIDERS).default('cpu'),
  ORT_THREADS: int(0, 256).default(0),
  SEPARATION_IDLE_SECONDS: int(0).default(300),
  /** `OUTPUT_TYPE[:TIER]=MODEL,...`: the operator's models, before the registry's (docs/models.md). */
  SEPARATION_MODELS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseModelChoices(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  YTDLP_PATH: z.string().min(1).default('yt-dlp'),
  YTDLP_TIMEOUT_MS: int(1000).default(600_000),
  FFMPEG_PATH: optionalString,
  FFPROBE_PATH: optionalString,
  REQUEST_TIMEOUT_SECONDS: int(1, 86_400).default(300),
  IDLE_TIMEOUT_SECONDS: int(1, 86_400).default(120),
  KEEP_ALIVE_TIMEOUT_SECONDS: int(1, 3_600).default(5),
  IDEMPOTENCY_KEY_HOURS: num(0.001).default(24),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  STEMFORGE_BOOTSTRAP_ACCOUNT: bool.default(true),
  STEMFORGE_CLI: z.string().trim().min(1).default('npx stemforge'),
  STEMFORGE_ADMIN_EMAIL: z
    .string()
    .trim()
    .refine(isEmailAddress, 'expected an email address (one @, no blanks, no invisible characters)')
    .default('admin@localhost'),
  DASHBOARD_REQUESTS_PER_MINUTE: int(1).default(600),
  TRUST_PROXY: z.string().trim().default('false').transform(parseTrustProxy),
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'at least 16 characters').optional()),
  METRICS_PORT: int(1, 65535).optional(),
  /** How long a request waits on PostgreSQL, Redis or S3 before answering 503 (docs/operations.md). */
  DEPENDENCY_TIMEOUT_SECONDS: int(1, 120).default(5),
  /** How long SIGTERM waits for running work to be handed back before the process exits anyway. */
  SHUTDOWN_GRACE_SECONDS: int(1, 3_600).default(30),
});

/** The environment as parsed. */
export type EnvSettings = z.infer<typeof envSchema>;

/** Every environment variable the configuration reads (docs/configuration.md's table documents each). */
export const CONFIG_VARIABLES = Object.keys(envSchema.shape);

export type Env = Record<string, string | undefined>;

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY's list. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: `false` (default: the peer's own address counts), `true` (every hop: only when no
 * client can reach the service except through the proxy), a hop count, or a comma-separated list
 * of proxy addresses, CIDR ranges and proxy-addr's names (loopback, linklocal, uniquelocal).
 */
function parseTrustProxy(value: string, ctx: z.RefinementCtx): boolean | number | string[] {
  if (/^(false|no|)$/i.test(value)) return false;
  if (/^(true|yes)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value.split(',').map((s) => s.trim());
  const bad = list.filter((s) => {
    const [address = '', prefix] = s.split('/');
    if (PROXY_RANGE_NAMES.has(s)) return false;
    const version = isIP(address);
    const bits = version === 6 ? 128 : 32;
    return version === 0 || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= bits));
  });
  if (bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `expected false, true, a hop count, or proxy addresses/CIDR ranges; not ${bad.join(', ')}`,
    });
    return z.NEVER;
  }
  return list;
}
