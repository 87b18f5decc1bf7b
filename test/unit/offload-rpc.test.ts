import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcClient, serveRpc, type RpcCall, type RpcReply } from '../../src/offload/rpc.ts';

// Both ends of the channel over a real MessageChannel (structured cloning, asynchronous delivery),
// the transport the denoise and analysis threads use.
const channels: MessageChannel[] = [];
afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

class Cancelled extends Error {}

function connect<Req, Res>(run: Parameters<typeof serveRpc<Req, Res>>[1]) {
  const channel = new MessageChannel();
  channels.push(channel);
  const serve = serveRpc<Req, Res>(
    (m) => channel.port2.postMessage(m),
    run,
    () => new Error('stopped by caller'),
  );
  channel.port2.on('message', (m: RpcCall<Req>) => serve(m));
  const client = new RpcClient<Req, Res>(
    (m) => channel.port1.postMessage(m),
    (e) => (e.aborted ? new Cancelled(e.message) : new Error(`${e.name}: ${e.message}`)),
  );
  channel.port1.on('message', (m: RpcReply<Res>) => client.receive(m));
  return client;
}

describe('offload RPC channel', () => {
  it('returns results with typed arrays intact and reports progress in order', async () => {
    const client = connect<{ n: number }, Float32Array>(async ({ n }, { onProgress }) => {
      for (let i = 1; i <= n; i++) onProgress(i / n);
      return Float32Array.from({ length: n }, (_, i) => i * 0.5);
    });
    const seen: number[] = [];
    const out = await client.call({ n: 4 }, { onProgress: (f) => seen.push(f) });
    expect(out).toBeInstanceOf(Float32Array);
    expect([...out]).toEqual([0, 0.5, 1, 1.5]);
    expect(seen).toEqual([0.25, 0.5, 0.75, 1]);
  });

  it('runs calls one after another and settles each with its own result', async () => {
    let active = 0;
    let most = 0;
    const client = connect<number, number>(async (x) => {
      most = Math.max(most, ++active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      return x * 10;
    });
    expect(await Promise.all([1, 2, 3].map((x) => client.call(x)))).toEqual([10, 20, 30]);
    expect(most).toBe(1);
  });

  it('rebuilds a failure with its name through toError', async () => {
    const client = connect<void, never>(async () => {
      const err = new Error('no such file');
      err.name = 'ModelFilesError';
      throw err;
    });
    await expect(client.call(undefined)).rejects.toThrow('ModelFilesError: no such file');
  });

  it('cancels through the signal: the worker side sees its signal abort with the cancel reason', async () => {
    const client = connect<void, void>(
      (_, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
    );
    const ac = new AbortController();
    const call = client.call(undefined, { signal: ac.signal });
    setTimeout(() => ac.abort(), 5);
    const err = await call.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cancelled);
    expect((err as Error).message).toBe('stopped by caller');
  });

  it('failAll rejects every open call and ignores their late replies', async () => {
    const client = connect<number, number>(async (x) => {
      await new Promise((r) => setTimeout(r, 20));
      return x;
    });
    const calls = [client.call(1), client.call(2)];
    client.failAll(new Error('worker died'));
    for (const c of calls) await expect(c).rejects.toThrow('worker died');
    // A later call on the same channel still works once the worker answers.
    expect(await client.call(3)).toBe(3);
  });
});
