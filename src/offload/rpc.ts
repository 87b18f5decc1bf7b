/*
 * The one request/reply channel between a caller and the thread or child process that does its
 * heavy work (separation process, denoise thread, analysis thread). Calls carry an id; the worker
 * side answers with progress, a result or an error for that id, and a cancel message aborts the
 * call's AbortSignal over there. Transport-neutral: each side is given a `post` function and is fed
 * the messages it receives, so it works over `process.send` and `postMessage` alike (both clone
 * typed arrays as they are).
 */

/** Caller -> worker. */
export type RpcCall<Req> = { type: 'call'; id: number; request: Req } | { type: 'cancel'; id: number };

/** A failure as it crosses the channel: Error objects do not survive structured cloning intact. */
export interface RemoteError {
  name: string;
  message: string;
  /** The call's signal was aborted when it failed (a cancelled job, not a broken one). */
  aborted: boolean;
}

/** Worker -> caller. */
export type RpcReply<Res> =
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'done'; id: number; result: Res }
  | { type: 'failed'; id: number; error: RemoteError };

export interface CallOptions {
  /** Fraction done, 0..1, as the worker reports it. */
  onProgress?: (fraction: number) => void;
  /** Aborting sends a cancel for this call; the call then fails as the worker reports. */
  signal?: AbortSignal;
}

interface Pending<Res> {
  resolve: (r: Res) => void;
  reject: (e: Error) => void;
  onProgress?: (fraction: number) => void;
}

const plainError = (e: RemoteError): Error => new Error(e.message);

/** Caller side: numbers the calls, settles each from its replies, and fails them all on a crash. */
export class RpcClient<Req, Res> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending<Res>>();

  /**
   * @param post sends a message to the worker (a send to a dead worker may be dropped: its exit
   *   must then reach {@link failAll}).
   * @param toError rebuilds the caller-side error of a failed call (an engine's own error classes).
   */
  constructor(
    private readonly post: (m: RpcCall<Req>) => void,
    private readonly toError: (e: RemoteError) => Error = plainError,
  ) {}

  call(request: Req, o: CallOptions = {}): Promise<Res> {
    const id = this.nextId++;
    return new Promise<Res>((resolve, reject) => {
      const onAbort = () => this.post({ type: 'cancel', id });
      o.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => o.signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (r) => {
          done();
          resolve(r);
        },
        reject: (e) => {
          done();
          reject(e);
        },
        onProgress: o.onProgress,
      });
      this.post({ type: 'call', id, request });
    });
  }

  /** Feeds one reply from the worker; replies to calls already settled are ignored. */
  receive(m: RpcReply<Res>): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') {
      p.onProgress?.(m.fraction);
      return;
    }
    this.pending.delete(m.id);
    if (m.type === 'done') p.resolve(m.result);
    else p.reject(this.toError(m.error));
  }

  /** The worker died or is being closed: every call still open fails with `err`. */
  failAll(err: Error): void {
    const open = [...this.pending.values()];
    this.pending.clear();
    for (const p of open) p.reject(err);
  }
}

export interface CallContext {
  /** Aborted when the caller cancels the call. */
  signal: AbortSignal;
  onProgress: (fraction: number) => void;
}

/**
 * Worker side: returns the handler for incoming messages. Calls run one after another (each engine
 * gives one job every thread it has); `cancelReason` is what a cancelled call's signal aborts with.
 */
export function serveRpc<Req, Res>(
  post: (m: RpcReply<Res>) => void,
  run: (request: Req, ctx: CallContext) => Promise<Res>,
  cancelReason?: () => unknown,
): (m: RpcCall<Req>) => void {
  const running = new Map<number, AbortController>();
  let queue: Promise<void> = Promise.resolve();
  return (m) => {
    if (m.type === 'cancel') {
      running.get(m.id)?.abort(cancelReason?.());
      return;
    }
    const { id, request } = m;
    const controller = new AbortController();
    running.set(id, controller);
    queue = queue.then(async () => {
      try {
        const onProgress = (fraction: number) => post({ type: 'progress', id, fraction });
        const result = await run(request, { signal: controller.signal, onProgress });
        post({ type: 'done', id, result });
      } catch (err) {
        post({ type: 'failed', id, error: remoteError(err, controller.signal.aborted) });
      } finally {
        running.delete(id);
      }
    });
  };
}

/** The cloneable form of a failure (also for failures outside a call, such as a model load). */
export function remoteError(err: unknown, aborted = false): RemoteError {
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message, aborted };
}
