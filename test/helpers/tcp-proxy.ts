import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './server.ts';

export interface TcpProxy {
  /** host:port of the proxy, to put in a URL in place of the target's. */
  address: string;
  /**
   * Cuts the link. `refuse`: the port closes and every open connection is reset (a stopped
   * server). `silent`: connections, open or new, are accepted and never answered (a network that
   * drops packets); they are reset when the link is restored.
   */
  cut(mode: 'refuse' | 'silent'): Promise<void>;
  /** Forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target` (e.g. the shared PostgreSQL), which a test cuts and
 * restores: an outage of that one link, the service behind it untouched for every other session.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let silent = false;
  let server: Server | undefined;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const listen = async () => {
    const srv = createServer((client) => {
      track(client);
      if (silent) return; // accepted, never forwarded nor answered
      const upstream = createConnection(target);
      track(upstream);
      // Bytes are dropped while silent, as by a network that loses packets (no reset, no answer).
      client.on('data', (d) => silent || upstream.write(d));
      upstream.on('data', (d) => silent || client.write(d));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve());
    });
    server = srv;
  };
  const stopListening = async () => {
    const srv = server;
    server = undefined;
    if (srv) await new Promise<void>((resolve) => srv.close(() => resolve()));
  };
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  await listen();
  return {
    address: `127.0.0.1:${port}`,
    async cut(mode) {
      silent = mode === 'silent';
      if (mode === 'refuse') {
        const closing = stopListening();
        dropAll();
        await closing;
      }
    },
    async restore() {
      // A connection that lost bytes while silent is broken either way: the restart of the link ends it.
      if (silent) dropAll();
      silent = false;
      if (!server) await listen();
    },
    async close() {
      const closing = stopListening();
      dropAll();
      await closing;
    },
  };
}
