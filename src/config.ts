import { join, resolve } from 'node:path';
import type { ModelChoice } from './domain/model-choices.ts';
import type { ExecutionProvider } from './domain/vocabulary.ts';
import type { StorageSettings } from './storage/backends.ts';
import { ConfigError, type Deployment, isParsablePostgresUrl, parseDeployment } from './config/deployment.ts';
import { type Env, envSchema } from './config/env.ts';
import { STORAGE_SETTINGS } from './config/storage.ts';

/**
 * The service's configuration, parsed once at start-up from the environment (`src/config/env.ts`
 * names every variable). Nothing else reads the environment; everything else receives a Config.
 */

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
