import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the receiver answers on a path: a status code, or 'hang' (never answers). */
export type Behaviour = number | 'hang';

export interface ReceivedHook {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received: signatures are checked over these. */
  raw: Buffer;
}

export interface Receiver {
  /** Absolute URL of a path on the receiver. */
  url(path: string): string;
  /** Sets how a path answers (default 200). */
  on(path: string, behaviour: Behaviour): void;
  received: ReceivedHook[];
  at(path: string): ReceivedHook[];
  /** Resolves once `count` requests have arrived on `path`. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every webhook request. */
export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedHook[] = [];
  const behaviours = new Map<string, Behaviour>();
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, method: req.method ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      const b = behaviours.get(path) ?? 200;
      if (b === 'hang') hanging.push(res);
      else res.writeHead(b, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url: (path) => `${base}${path}`,
    on: (path, behaviour) => void behaviours.set(path, behaviour),
    received,
    at,
    async waitFor(path, count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (at(path).length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} request(s) on ${path}, got ${at(path).length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return at(path);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
