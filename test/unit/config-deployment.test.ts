import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/config/deployment.ts';
import { safeError } from '../../src/queue/log-swallowed.ts';
import { DependencyUnavailableError } from '../../src/domain/dependency-error.ts';

const SCALE_OUT = {
  STEMFORGE_MODE: 'scale-out',
  DATABASE_URL: 'postgres://stemforge:pw@db/stemforge',
  REDIS_URL: 'redis://redis:6379',
  STORAGE: 's3',
  S3_BUCKET: 'stems',
  STEMFORGE_SIGNING_SECRET: 'x'.repeat(32),
};

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('deployment mode (STEMFORGE_MODE)', () => {
  it('is embedded with no configuration, on SQLite', () => {
    const c = loadConfig({});
    expect(c.deployment).toEqual({ mode: 'embedded' });
    expect(c.databaseUrl.startsWith('sqlite:')).toBe(true);
  });

  it('accepts PostgreSQL for the one embedded process', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/d' }).deployment).toEqual({ mode: 'embedded' });
  });

  it('refuses REDIS_URL in embedded mode instead of guessing scale-out', () => {
    const msg = refusal({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(msg).toContain('REDIS_URL');
    expect(msg).toContain('STEMFORGE_MODE=scale-out');
  });

  it('accepts a complete scale-out deployment', () => {
    expect(loadConfig(SCALE_OUT).deployment).toEqual({ mode: 'scale-out', redisUrl: 'redis://redis:6379' });
  });

  it('names every missing piece of a scale-out deployment at once', () => {
    const msg = refusal({ STEMFORGE_MODE: 'scale-out' });
    for (const name of ['REDIS_URL', 'DATABASE_URL=postgres://', 'STORAGE=s3', 'STEMFORGE_SIGNING_SECRET']) {
      expect(msg).toContain(name);
    }
  });

  it.each([
    ['REDIS_URL', { REDIS_URL: '' }],
    ['DATABASE_URL', { DATABASE_URL: 'sqlite:/tmp/x.db' }],
    ['STORAGE=s3', { STORAGE: 'disk' }],
    ['STEMFORGE_SIGNING_SECRET', { STEMFORGE_SIGNING_SECRET: '' }],
  ])('refuses scale-out without %s, naming only it', (name, change) => {
    const msg = refusal({ ...SCALE_OUT, ...change });
    expect(msg).toContain(name);
    const others = ['REDIS_URL (', 'DATABASE_URL=', 'STORAGE=s3', 'STEMFORGE_SIGNING_SECRET ('].filter(
      (n) => !n.startsWith(name),
    );
    for (const other of others) expect(msg).not.toContain(other);
    // Never echoes a credential it was given.
    expect(msg).not.toContain(':pw@');
  });

  it('refuses an unknown mode, naming the variable', () => {
    expect(refusal({ STEMFORGE_MODE: 'cluster' })).toContain('STEMFORGE_MODE');
  });
});

describe('TRUST_PROXY and the cache directory (issue 28)', () => {
  it('believes no forwarded header by default', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });

  it('takes true, a hop count, or proxy addresses, ranges and names', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('refuses what is not an address, naming the variable and the bad part', () => {
    expect(refusal({ TRUST_PROXY: '10.0.0.0/33' })).toMatch(/TRUST_PROXY: .*not 10\.0\.0\.0\/33/);
    expect(refusal({ TRUST_PROXY: 'proxy.example.com' })).toMatch(/TRUST_PROXY: .*not proxy\.example\.com/);
  });

  it('keeps derived model files in the data folder unless STEMFORGE_CACHE_DIR says otherwise', () => {
    const c = loadConfig({ STEMFORGE_DATA_DIR: '/srv/sf', STEMFORGE_MODELS_DIR: '/models' });
    expect([c.modelsDir, c.cacheDir]).toEqual(['/models', '/srv/sf/cache']);
    expect(loadConfig({ STEMFORGE_CACHE_DIR: '/var/cache/sf' }).cacheDir).toBe('/var/cache/sf');
  });
});

describe('dependencies and stops in the configuration', () => {
  it('bounds dependency waits at 5 s and the grace period at 30 s unless told otherwise', () => {
    const c = loadConfig({});
    expect([c.dependencyTimeoutMs, c.shutdownGraceMs]).toEqual([5_000, 30_000]);
    const t = loadConfig({ DEPENDENCY_TIMEOUT_SECONDS: '2', SHUTDOWN_GRACE_SECONDS: '10' });
    expect([t.dependencyTimeoutMs, t.shutdownGraceMs]).toEqual([2_000, 10_000]);
  });

  it('refuses a PostgreSQL URL node-postgres cannot read, naming DATABASE_URL but never echoing it', () => {
    for (const url of ['postgres://u:secret@127.0.0.1:99999/db', 'postgres://u:secret@[::1/db']) {
      const message = refusal({ DATABASE_URL: url });
      expect(message).toContain('DATABASE_URL is not a valid PostgreSQL URL');
      expect(message).not.toContain('secret');
    }
    // What node-postgres reads: a socket folder without a host, spaces encoded for it.
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@/db?host=/var/run/postgresql' }).databaseUrl).toContain('/db');
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p w@h/db' }).databaseUrl).toContain('h/db');
  });
});

describe('safeError (what queue adapters log)', () => {
  it('keeps the message and code but never a password in a URL', () => {
    const err = Object.assign(new Error('connect to redis://default:hunter2@10.0.0.5:6379 failed'), {
      code: 'ECONNREFUSED',
    });
    expect(safeError(err)).toEqual({ message: 'connect to redis://***@10.0.0.5:6379 failed', code: 'ECONNREFUSED' });
    expect(safeError('plain')).toEqual({ message: 'plain' });
  });

  it('names the dependency of a DependencyUnavailableError, so the logger counts it toward that outage', () => {
    const err = new DependencyUnavailableError('database', 'ECONNREFUSED');
    expect(safeError(err)).toEqual({
      message: 'the database is unreachable (ECONNREFUSED)',
      dependency: 'database',
      reason: 'ECONNREFUSED',
    });
  });
});
