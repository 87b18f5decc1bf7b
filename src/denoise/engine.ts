import type { ExecutionProvider } from '../models/registry.ts';
import type { Worker } from 'node:worker_threads';
import type { AudioFormat } from '../domain/vocabulary.ts';
import { defaultTools, type FfmpegTools } from '../audio/tools.ts';
import { startThread } from '../offload/start-thread.ts';
import { RpcClient, type RemoteError } from '../offload/rpc.ts';
import type { DenoiseCall, DenoiseReply, FromThread } from './engine-protocol.ts';
import { ModelFilesError } from './model-files.ts';

export interface DenoiseEngineOptions {
  /** Folder holding enc.onnx, erb_dec.onnx, df_dec.onnx and config.ini (checked against pinned sha256). */
  modelDir: string;
  executionProvider?: ExecutionProvider;
  /** ORT intra-op threads; 0 = 1 (fastest on small machines, see docs/denoise.md). */
  threads?: number;
  /** Infrasound high-pass cut-off on the output (Hz, default 35; 0 = off). See docs/denoise.md. */
  highPassHz?: number;
  /** Start-up handling: 'mirror' (default) or 'none' (upstream's cold start, for comparisons). */
  startup?: 'mirror' | 'none';
  /** The clean-frame guard (default on; false for comparisons). */
  guard?: boolean;
  tools?: FfmpegTools;
}

export interface DenoiseJob {
  inputPath: string;
  outputPath: string;
  format: AudioFormat;
  /**
   * Most noise reduction allowed, dB (e.g. 12: noise is lowered by at most 12 dB, the rest of the
   * recording's ambience stays). Undefined or 0: no limit.
   */
  attenuationLimitDb?: number;
  /** Fraction done in [0, 1]. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface DenoiseResult {
  /** Duration of the cleaned output (equal to the input's). */
  durationSeconds: number;
  /** Channels of the output: 1 for mono input, 2 otherwise. */
  channels: number;
  /** Sample rate of the output: the input's (at most the model's 48 kHz). */
  sampleRate: number;
}

/**
 * DeepFilterNet3 speech enhancement in a worker thread. The thread loads and verifies the model once
 * and serves jobs in order; a job's promise settles after its output file is complete (or removed,
 * when it fails or is cancelled through its AbortSignal, with an AbortError).
 */
export class DenoiseEngine {
  private readonly worker: Worker;
  private readonly rpc = new RpcClient<DenoiseCall, DenoiseReply>((m) => this.worker.postMessage(m), deserializeError);
  private closed = false;
  private readonly readyPromise: Promise<void>;
  private fatal: Error | undefined;

  constructor(opts: DenoiseEngineOptions) {
    this.worker = startThread(new URL('./engine-thread.ts', import.meta.url), {
      workerData: {
        modelDir: opts.modelDir,
        executionProvider: opts.executionProvider ?? 'cpu',
        threads: opts.threads ?? 0,
        highPassHz: opts.highPassHz,
        startup: opts.startup ?? 'mirror',
        guard: opts.guard ?? true,
        tools: opts.tools ?? defaultTools,
      },
    });
    let settleReady!: (err?: Error) => void;
    this.readyPromise = new Promise<void>((resolve, reject) => {
      settleReady = (err) => (err ? reject(err) : resolve());
    });
    this.readyPromise.catch(() => undefined);
    this.worker.on('message', (msg: FromThread) => {
      if (msg.type === 'ready') settleReady();
      else if (msg.type === 'load-failed') {
        this.fatal = deserializeError(msg.error);
        settleReady(this.fatal);
        this.rpc.failAll(this.fatal);
      } else this.rpc.receive(msg);
    });
    const onDeath = (err: Error) => {
      this.fatal ??= err;
      settleReady(this.fatal);
      this.rpc.failAll(this.fatal);
    };
    this.worker.on('error', onDeath);
    this.worker.on('exit', (code) => {
      if (!this.closed) onDeath(new Error(`denoise worker thread exited (code ${code})`));
    });
  }

  /** Resolves once the model is loaded; rejects with ModelFilesError on a missing or corrupt model. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Cleans one file. Input: anything ffmpeg decodes; output: `format` at the input's sample rate. */
  async denoiseFile(job: DenoiseJob): Promise<DenoiseResult> {
    if (this.closed) throw new Error('DenoiseEngine is closed');
    if (this.fatal) throw this.fatal;
    job.signal?.throwIfAborted();
    const { inputPath, outputPath, format, attenuationLimitDb, onProgress, signal } = job;
    return this.rpc.call({ inputPath, outputPath, format, attenuationLimitDb }, { onProgress, signal });
  }

  /** Stops the thread; jobs still running are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.rpc.failAll(new Error('DenoiseEngine closed'));
    await this.worker.terminate();
  }
}

function deserializeError(e: RemoteError): Error {
  const err = e.name === 'ModelFilesError' ? new ModelFilesError(e.message) : new Error(e.message);
  err.name = e.name;
  return err;
}
