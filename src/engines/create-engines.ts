import type { Config } from '../config.ts';
import { ModelNotInstalledError, SeparationEngine } from '../separation/engine.ts';
import { DenoiseEngine } from '../denoise/engine.ts';
import { analyzeAudioInThread } from '../analysis/analyze-off-thread.ts';
import { isModelInstalled, resolveModel } from '../models/resolve.ts';
import { denoiseModel } from '../models/registry.ts';
import { PermanentJobError } from '../domain/permanent-job-error.ts';
import type { Engines } from './engines.ts';

/**
 * The real engines: warm separation processes (one per concurrent job, each holds its model), one
 * DeepFilterNet3 thread, and the BPM/key analyser. Engines start on first use.
 */
export function createEngines(config: Config): Engines {
  const idle = new Map<string, SeparationEngine[]>();
  const all = new Set<SeparationEngine>();
  let denoiser: DenoiseEngine | undefined;

  const acquire = (model: string): SeparationEngine => {
    const warm = idle.get(model)?.pop();
    if (warm) return warm;
    // At most `concurrency` engines stay warm: an idle engine of the other model makes room.
    if (all.size >= config.workers.concurrency) {
      const spare = [...idle.values()].find((list) => list.length > 0)?.pop();
      if (spare) {
        all.delete(spare);
        void spare.close();
      }
    }
    const engine = new SeparationEngine({
      modelsDir: config.modelsDir,
      cacheDir: config.cacheDir,
      model,
      executionProvider: config.onnx.executionProvider,
      threads: config.onnx.threads,
      tools: config.ffmpeg,
      idleTimeoutMs: config.onnx.separationIdleSeconds > 0 ? config.onnx.separationIdleSeconds * 1000 : undefined,
    });
    all.add(engine);
    return engine;
  };

  return {
    async separate(req) {
      const { model } = req;
      const engine = acquire(model);
      try {
        return await engine.separateFile(req);
      } catch (err) {
        // Retrying cannot install a model.
        throw err instanceof ModelNotInstalledError ? new PermanentJobError(err.message) : err;
      } finally {
        idle.set(model, [...(idle.get(model) ?? []), engine]);
      }
    },
    async denoise(req) {
      if (!denoiser) {
        const { name } = denoiseModel();
        const model = resolveModel(name, { modelsDir: config.modelsDir });
        if (!model) {
          throw new Error(
            `the DeepFilterNet3 model is not installed in ${config.modelsDir}/${name}: run "npx stemforge models pull ${name}" or set STEMFORGE_MODELS_DIR`,
          );
        }
        denoiser = new DenoiseEngine({
          modelDir: model.dir,
          executionProvider: config.onnx.executionProvider,
          tools: config.ffmpeg,
        });
      }
      await denoiser.denoiseFile(req);
    },
    async analyze(req) {
      // In a worker thread: analysis takes about a second of CPU and must never block the API.
      const r = await analyzeAudioInThread({ ...req, tools: config.ffmpeg });
      const { beats, downbeats, beatsPerBar, beatConfidence, chords } = r;
      return {
        bpm: r.bpm,
        key: r.key,
        tempoConfidence: r.tempoConfidence,
        keyConfidence: r.keyConfidence,
        detail: { beats, downbeats, beatsPerBar, beatConfidence, chords },
      };
    },
    hasModel: (name) => isModelInstalled(name, { modelsDir: config.modelsDir }),
    async close() {
      await Promise.all([...all].map((e) => e.close()));
      await denoiser?.close();
    },
  };
}
