import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { DependencyMonitor } from '../../src/dependencies/monitor.ts';
import { withDeadline } from '../../src/dependencies/unavailable.ts';
import { DependencyUnavailableError } from '../../src/domain/dependency-error.ts';
import { safeError } from '../../src/queue/log-swallowed.ts';

/** A logger whose lines the test reads. */
function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

describe('the dependency monitor', () => {
  it('warns once per dependency within the quiet time, whatever the number of failures', () => {
    const { log, lines } = captured();
    const monitor = new DependencyMonitor(log, { timeoutMs: 100 });
    for (let i = 0; i < 50; i++) monitor.failed('redis', refused);
    monitor.failed('database', refused);
    expect(lines.map((l) => [l.dependency, l.reason])).toEqual([
      ['redis', 'ECONNREFUSED'],
      ['database', 'ECONNREFUSED'],
    ]);
    expect(monitor.isDown('redis')).toBe(true);
    monitor.close();
  });

  it('probes a dependency while it is down and logs its return once', async () => {
    const { log, lines } = captured();
    const monitor = new DependencyMonitor(log, { timeoutMs: 100, recheckMs: 20 });
    let up = false;
    monitor.watch('storage', async () => {
      if (!up) throw refused;
    });
    monitor.failed('storage', refused);
    await new Promise((r) => setTimeout(r, 60));
    up = true;
    for (let i = 0; i < 50 && monitor.isDown('storage'); i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 60));
    expect(monitor.isDown('storage')).toBe(false);
    expect(lines.filter((l) => /reachable again/.test(String(l.msg)))).toHaveLength(1);
    monitor.close();
  });

  it('answers readiness within the timeout, reusing an answer for a moment', async () => {
    const { log } = captured();
    const monitor = new DependencyMonitor(log, { timeoutMs: 50, cacheMs: 10_000 });
    let calls = 0;
    monitor.watch('database', async () => {
      calls++;
    });
    monitor.watch('redis', () => new Promise(() => {})); // never answers
    const first = await monitor.check();
    expect(first.database).toEqual({ ok: true });
    expect(first.redis).toEqual({
      ok: false,
      detail: 'Redis (the job queue) is unreachable (no answer within 0.05 s)',
    });
    await monitor.check();
    expect(calls).toBe(1);
    monitor.close();
  });

  it('absorbs a warning whose error names a dependency (safeError), and no other', () => {
    const { log } = captured();
    const monitor = new DependencyMonitor(log, { timeoutMs: 100 });
    const away = new DependencyUnavailableError('database', 'ECONNRESET');
    expect(monitor.absorbs({ error: safeError(away) })).toBe(true);
    expect(monitor.isDown('database')).toBe(true);
    expect(monitor.absorbs({ error: safeError(refused) })).toBe(false);
    expect(monitor.absorbs('a plain message')).toBe(false);
    monitor.close();
  });
});

describe('withDeadline', () => {
  it('rejects with DependencyUnavailableError once the time has passed, and passes a result through', async () => {
    await expect(withDeadline(new Promise(() => {}), 20, 'redis')).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(withDeadline(Promise.resolve(7), 20, 'redis')).resolves.toBe(7);
  });
});
