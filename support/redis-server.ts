import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

export interface TestRedis {
  url: string;
  /** Kills the server (SIGKILL: an outage, not a goodbye); its data goes with it. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

/**
 * A Redis of the test's own, on a free port, without persistence (`redis-server --port N --save ''
 * --appendonly no`): a test may stop and restart it, which the shared Redis on 6379 must never be.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => 100, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    try {
      for (let i = 0; i < 100; i++) {
        if (
          await probe.connect().then(
            () => probe.ping(),
            () => null,
          )
        )
          return;
        probe.disconnect();
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`redis-server did not start on port ${port}`);
    } finally {
      probe.disconnect();
    }
  };
  await start();
  return {
    url,
    start,
    async stop() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      running.kill('SIGKILL');
      await once(running, 'exit');
    },
  };
}
