import type { Config } from './config.ts';
import { connectDatabase, pingDatabase, type DatabaseHandle, type DialectName } from './store/db.ts';
import type { Db } from './store/schema.ts';
import { resolveSigningSecret } from './secrets.ts';
import { UrlSigner } from './storage/url-signer.ts';
import { createBlobStore } from './storage/create-blob-store.ts';
import type { BlobStore } from './storage/blob-store.ts';
import { createRateLimiter } from './ratelimit/create-rate-limiter.ts';
import type { RateLimiter } from './ratelimit/rate-limiter.ts';
import { pino, type Logger } from 'pino';
import { LOG_SERIALIZERS, REDACT_PATHS, REDACTED } from './log-redaction.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { createQueue } from './queue/create-queue.ts';
import type { Engines } from './engines/engines.ts';
import { createEngines } from './engines/create-engines.ts';
import { localModels, workerModels, type ModelAvailability } from './models/availability.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { registerFleetGauges, registerQueueGauges } from './metrics/queue-gauges.ts';
import { DependencyMonitor } from './dependencies/monitor.ts';
import { registerDependencyGauge } from './metrics/dependency-gauge.ts';

/**
 * The composition root: the adapters chosen by config for each port. Built once per process and
 * passed to the HTTP app, the workers and the CLI commands.
 */
export interface Runtime {
  config: Config;
  db: Db;
  dialect: DialectName;
  blobs: BlobStore;
  signer: UrlSigner;
  rateLimiter: RateLimiter;
  queue: JobQueue;
  /** Which optional models the processes that run jobs have (this one, or the live workers). */
  models: ModelAvailability;
  log: Logger;
  /** This process's Prometheus metrics (served only when METRICS_TOKEN is set). */
  metrics: Metrics;
  /** What this process knows of PostgreSQL, Redis and S3: `/readyz`, and one log line per outage. */
  dependencies: DependencyMonitor;
  /** The audio engines, created on first use (API-only processes never load a model). */
  engines(): Engines;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** PostgreSQL schema (tests run each suite in its own). */
  dbSchema?: string;
  /** Replaces the engines (tests of failure paths wrap the real ones). */
  engines?: (config: Config) => Engines;
}

export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  let dependencies: DependencyMonitor | undefined;
  const log = pino({
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: LOG_SERIALIZERS,
    // A warning about a dependency being away counts toward its one warning a minute (monitor.ts).
    hooks: {
      logMethod(args, method, level) {
        if (level >= 40 && dependencies?.absorbs(args[0])) return;
        method.apply(this, args);
      },
    },
  });
  dependencies = new DependencyMonitor(log, { timeoutMs: config.dependencyTimeoutMs });
  const timeoutMs = config.dependencyTimeoutMs;
  const handle: DatabaseHandle = await connectDatabase(config.databaseUrl, {
    schema: opts.dbSchema,
    timeoutMs,
    boundQueries: true,
    onUnavailable: dependencies.reporter('database'),
  });
  dependencies.watch('database', () => pingDatabase(handle.db));
  const secret = await resolveSigningSecret(config.signingSecret, config.dataDir);
  const signer = new UrlSigner(secret);
  const onStorage = dependencies.reporter('storage');
  const store = createBlobStore(config.storage, {
    publicUrl: config.publicUrl,
    signer,
    timeoutMs,
    onUnavailable: onStorage,
  });
  if (store.probe) dependencies.watch('storage', () => store.probe!());
  const rateLimiter = createRateLimiter(config, dependencies.reporter('redis'));
  const queue = createQueue(config, handle.db, log, dependencies.reporter('redis'));
  if (queue.probe) dependencies.watch('redis', () => queue.probe!());
  if (handle.newerMigrations?.length) {
    // A rolling upgrade or a rollback: a newer release migrated this database (docs/upgrades.md).
    log.warn(
      { migrations: handle.newerMigrations },
      'the database has migrations of a newer release; this release runs on it (migrations only add)',
    );
  }
  const metrics = createMetrics({ processMetrics: config.metrics.token !== undefined });
  registerQueueGauges(metrics, handle.db);
  registerDependencyGauge(metrics, () => dependencies.check());
  if (config.deployment.mode === 'scale-out') registerFleetGauges(metrics, handle.db);
  let engines: Engines | undefined;
  const getEngines = () => (engines ??= (opts.engines ?? createEngines)(config));
  const models =
    config.deployment.mode === 'scale-out'
      ? workerModels(handle.db)
      : localModels((name) => getEngines().hasModel(name));
  return {
    config,
    db: handle.db,
    dialect: handle.dialect,
    blobs: store,
    signer,
    rateLimiter,
    queue,
    log,
    metrics,
    dependencies,
    models,
    engines: getEngines,
    async close() {
      dependencies.close();
      await queue.close();
      await engines?.close();
      await rateLimiter.close();
      await store.close();
      await handle.close();
    },
  };
}
