import { isIP } from 'node:net';
import { resolve, join } from 'node:path';
import { z } from 'zod';
import { EXECUTION_PROVIDERS, type ExecutionProvider } from './domain/vocabulary.ts';
import {
  STORAGE_BACKEND_NAMES,
  STORAGE_BACKENDS,
  type StorageBackendName,
  type StorageSettings,
} from './storage/backends.ts';
import { isEmailAddress } from './domain/safe-text.ts';
import { type ModelChoice, parseModelChoices } from './domain/model-choices.ts';

/**
 * The service's configuration, parsed once at start-up from the environment.
 * This is the only module that knows environment variable names; everything else receives a Config.
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

const envSchema = z.object({
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

/**
 * How the processes of a deployment share work. `embedded`: one process runs the API and the
 * workers over its own database (SQLite by default; PostgreSQL is accepted for that one process),
 * an in-process queue and in-memory rate-limit counters. `scale-out`: any number of API and worker
 * processes share PostgreSQL, BullMQ on Redis, S3-compatible storage and one signing secret.
 */
export type Deployment = { mode: 'embedded' } | { mode: 'scale-out'; redisUrl: string };

export interface Config {
  deployment: Deployment;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  /** The site URL (no trailing slash); the API base is `${publicUrl}/v1`. */
  publicUrl: string;
  /** HMAC secret for signed URLs; when absent the bootstrap generates and persists one. */
  signingSecret: string | undefined;
  limits: {
    maxFileSizeBytes: number;
    maxDurationSeconds: number;
    minDurationSeconds: number;
    requestsPerMinute: number;
    freeCreditSeconds: number;
  };
  purchaseUrl: string;
  /** False (METERING=off): no holds or charges; balances move only by grants. */
  metering: boolean;
  allowPrivateUrls: boolean;
  sourceFetch: { timeoutMs: number; maxRedirects: number };
  webhookTimeoutMs: number;
  workers: {
    concurrency: number;
    downloadConcurrency: number;
    maxAttempts: number | undefined;
    retryBaseMs: number;
    /** Crashes a job survives before it is FAILED (JOB_CRASHED); counted apart from errors. */
    maxCrashes: number;
  };
  retentionSeconds: number;
  /** KEEP_LIMIT_MB in bytes: what one account may keep past retention; 0 turns Keep off. */
  keepLimitBytes: number;
  /** ORPHAN_SWEEP_SECONDS: the orphan sweep's period (`src/startup-sweep.ts`). */
  orphanSweepSeconds: number;
  /** Namespace of every Redis key (queues, rate-limit counters): deployments can share a Redis. */
  redisPrefix: string;
  storage: StorageSettings;
  /** Where the model weights are read from; read-only is fine (only `models pull` writes here). */
  modelsDir: string;
  /** What the service derives from the models and may rebuild: prepared graph copies and the record of verified checksums. */
  cacheDir: string;
  onnx: {
    executionProvider: ExecutionProvider;
    threads: number;
    /** A warm separation process exits after this long without a job (0: never), returning its memory. */
    separationIdleSeconds: number;
    /** The operator's model per output type and tier (`SEPARATION_MODELS`), chosen before the registry's. */
    separationModels: ModelChoice[];
  };
  ytdlp: { path: string; timeoutMs: number };
  /**
   * The ffmpeg and ffprobe jobs run. As loaded: FFMPEG_PATH/FFPROBE_PATH (`configured`), else the
   * names on PATH; the commands that take audio replace it with src/audio/ffmpeg-choice.ts's choice
   * (a recent system ffmpeg, else the bundled one), with `unavailable` when there is none.
   */
  ffmpeg: { ffmpegPath: string; ffprobePath: string; configured: boolean; soxr?: boolean; unavailable?: boolean };
  /**
   * HTTP server timeouts. `requestMs`: the whole request, body included, must arrive within it (a
   * body dribbled a byte at a time is cut). `idleMs`: a socket with no traffic either way for this
   * long is closed; it must exceed the slowest handler (a sourceUrl fetch). `keepAliveMs`: how long
   * an idle keep-alive connection is kept between requests.
   */
  http: { requestTimeoutMs: number; idleTimeoutMs: number; keepAliveTimeoutMs: number };
  /** How long an Idempotency-Key and its stored response are kept (Stripe: 24 h). */
  idempotencyKeySeconds: number;
  logLevel: string;
  /**
   * Which peers' X-Forwarded-For/-Proto/-Host headers are believed (Fastify's trustProxy): none
   * (false), all (true), the nearest N hops, or the listed proxy addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string[];
  bootstrapAccount: boolean;
  /** How the first start's banner tells the operator to run the command line (the image: `docker exec <container> stemforge`). */
  cliCommand: string;
  dashboard: {
    /** Email of the account the first start creates, and signs in to the dashboard with. */
    adminEmail: string;
    /** Requests per minute per dashboard session (the page polls running jobs). */
    requestsPerMinute: number;
    /** Session cookies carry `Secure` when the site is served over https. */
    secureCookies: boolean;
  };
  /**
   * Prometheus metrics: served at `/metrics` only with `Authorization: Bearer <token>`; no token,
   * no metrics (404). `port`: where `stemforge worker` serves its own `/metrics` and `/healthz`.
   */
  metrics: { token: string | undefined; port: number | undefined };
  /**
   * DEPENDENCY_TIMEOUT_SECONDS: the longest a connect, query, command or S3 call may take before
   * it counts as the dependency being away (a 503 with Retry-After; a failed start).
   */
  dependencyTimeoutMs: number;
  /** SHUTDOWN_GRACE_SECONDS: SIGTERM's time to hand work back before the forced exit. */
  shutdownGraceMs: number;
}

export class ConfigError extends Error {}

/** Each backend's settings from the environment; a backend declared without its entry fails to compile. */
const STORAGE_SETTINGS: Record<StorageBackendName, (e: z.infer<typeof envSchema>, dataDir: string) => StorageSettings> =
  {
    disk: (_e, dataDir) => ({ kind: 'disk', root: join(dataDir, 'blobs') }),
    s3: (e) => ({
      kind: 's3',
      bucket: e.S3_BUCKET!,
      region: e.S3_REGION,
      endpoint: e.S3_ENDPOINT,
      publicEndpoint: e.S3_PUBLIC_ENDPOINT,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      forcePathStyle: e.S3_FORCE_PATH_STYLE,
    }),
  };

/** Parses the environment into a Config, throwing a ConfigError that names every bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.STEMFORGE_DATA_DIR);
  const databaseUrl = e.DATABASE_URL ?? `sqlite:${join(dataDir, 'stemforge.db')}`;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('invalid configuration: DATABASE_URL: expected sqlite:<path> or postgres://...');
  }
  if (databaseUrl.startsWith('postgres') && !isParsablePostgresUrl(databaseUrl)) {
    throw new ConfigError(
      'invalid configuration: DATABASE_URL is not a valid PostgreSQL URL (expected postgres://user:password@host:5432/database, ' +
        'with special characters in the password percent-encoded)',
    );
  }
  if (e.STORAGE === 's3' && !e.S3_BUCKET) {
    throw new ConfigError('invalid configuration: S3_BUCKET: required when STORAGE=s3');
  }
  const deployment = parseDeployment(e, databaseUrl);
  const publicHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  return {
    deployment,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl,
    publicUrl: (e.PUBLIC_URL ?? `http://${publicHost}:${e.PORT}`).replace(/\/+$/, ''),
    signingSecret: e.STEMFORGE_SIGNING_SECRET,
    limits: {
      maxFileSizeBytes: Math.round(e.MAX_FILE_SIZE_MB * 1024 * 1024),
      maxDurationSeconds: Math.round(e.MAX_DURATION_MINUTES * 60),
      minDurationSeconds: e.MIN_DURATION_SECONDS,
      requestsPerMinute: e.RATE_LIMIT_PER_MINUTE,
      freeCreditSeconds: e.FREE_CREDIT_SECONDS,
    },
    purchaseUrl: e.PURCHASE_URL,
    metering: e.METERING === 'on',
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    sourceFetch: { timeoutMs: e.SOURCE_FETCH_TIMEOUT_MS, maxRedirects: e.SOURCE_MAX_REDIRECTS },
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    workers: {
      concurrency: e.WORKER_CONCURRENCY,
      downloadConcurrency: e.DOWNLOAD_CONCURRENCY,
      maxAttempts: e.JOB_MAX_ATTEMPTS,
      retryBaseMs: e.JOB_RETRY_BASE_MS,
      maxCrashes: e.JOB_MAX_CRASHES,
    },
    retentionSeconds: Math.round(e.OUTPUT_RETENTION_HOURS * 3600),
    keepLimitBytes: Math.round(e.KEEP_LIMIT_MB * 1024 * 1024),
    orphanSweepSeconds: e.ORPHAN_SWEEP_SECONDS,
    redisPrefix: e.REDIS_PREFIX,
    storage: STORAGE_SETTINGS[e.STORAGE](e, dataDir),
    modelsDir: resolve(e.STEMFORGE_MODELS_DIR ?? join(dataDir, 'models')),
    cacheDir: resolve(e.STEMFORGE_CACHE_DIR ?? join(dataDir, 'cache')),
    onnx: {
      executionProvider: e.ORT_EXECUTION_PROVIDER,
      threads: e.ORT_THREADS,
      separationIdleSeconds: e.SEPARATION_IDLE_SECONDS,
      separationModels: e.SEPARATION_MODELS,
    },
    ytdlp: { path: e.YTDLP_PATH, timeoutMs: e.YTDLP_TIMEOUT_MS },
    ffmpeg: {
      ffmpegPath: e.FFMPEG_PATH ?? 'ffmpeg',
      ffprobePath: e.FFPROBE_PATH ?? 'ffprobe',
      configured: e.FFMPEG_PATH !== undefined || e.FFPROBE_PATH !== undefined,
    },
    http: {
      requestTimeoutMs: e.REQUEST_TIMEOUT_SECONDS * 1000,
      idleTimeoutMs: e.IDLE_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    idempotencyKeySeconds: Math.round(e.IDEMPOTENCY_KEY_HOURS * 3600),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    bootstrapAccount: e.STEMFORGE_BOOTSTRAP_ACCOUNT,
    cliCommand: e.STEMFORGE_CLI,
    dashboard: {
      adminEmail: e.STEMFORGE_ADMIN_EMAIL.toLowerCase(),
      requestsPerMinute: e.DASHBOARD_REQUESTS_PER_MINUTE,
      secureCookies: (e.PUBLIC_URL ?? '').startsWith('https:'),
    },
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    dependencyTimeoutMs: e.DEPENDENCY_TIMEOUT_SECONDS * 1000,
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
  };
}

/**
 * Whether node-postgres can read `url` (it parses with WHATWG URL, also trying an empty host, and
 * would otherwise fail at the first connect with a bare "Invalid URL"). The URL is never echoed: it
 * may hold a password.
 */
function isParsablePostgresUrl(url: string): boolean {
  const encoded = /\s|%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url;
  return [encoded, encoded.replace('@/', '@localhost/')].some((u) => URL.canParse(u));
}

/**
 * Checks that the settings form one coherent deployment, naming everything missing at once. The
 * mode is never inferred from other variables: a forgotten REDIS_URL must not quietly turn a
 * fleet of processes into several "embedded" ones that release each other's job leases.
 */
function parseDeployment(e: z.infer<typeof envSchema>, databaseUrl: string): Deployment {
  if (e.STEMFORGE_MODE === 'embedded') {
    if (e.REDIS_URL) {
      throw new ConfigError(
        'invalid configuration: REDIS_URL is set but STEMFORGE_MODE is embedded (the default), which uses no Redis: ' +
          'set STEMFORGE_MODE=scale-out to run separate API and worker processes, or unset REDIS_URL',
      );
    }
    return { mode: 'embedded' };
  }
  const missing: string[] = [];
  if (!e.REDIS_URL) missing.push('REDIS_URL (the BullMQ queues and shared rate-limit counters)');
  if (!databaseUrl.startsWith('postgres')) missing.push("DATABASE_URL=postgres://... (SQLite is one machine's file)");
  const storage = STORAGE_BACKENDS[e.STORAGE];
  if (!storage.sharedBetweenProcesses) {
    const shared = Object.values(STORAGE_BACKENDS).filter((b) => b.sharedBetweenProcesses);
    missing.push(`${shared.map((b) => b.setting).join(' or ')} (${storage.description} is not shared between hosts)`);
  }
  if (!e.STEMFORGE_SIGNING_SECRET) {
    missing.push(
      'STEMFORGE_SIGNING_SECRET (the same value on every process, so any API process accepts the URLs another signed)',
    );
  }
  if (missing.length > 0 || !e.REDIS_URL) {
    throw new ConfigError(`invalid configuration: STEMFORGE_MODE=scale-out needs ${missing.join('; ')}`);
  }
  return { mode: 'scale-out', redisUrl: e.REDIS_URL };
}
