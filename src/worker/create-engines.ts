import type { Config } from '../config.ts';
import { SeparationEngine } from '../separation/engine.ts';
import { DenoiseEngine } from '../denoise/engine.ts';
import { analyzeAudioInThread } from '../analysis/analyze-off-thread.ts';
import { isModelInstalled, resolveModel } from '../models/resolve.ts';
import type { Engines } from './engines.ts';

/**
 * The real engines: a pool of warm HTDemucs threads (one per concurrent job, each holds its ONNX
 * session), one DeepFilterNet3 thread, and the BPM/key analyser. Threads start on first use.
 */
export function createEngines(config: Config): Engines {
  const idle: SeparationEngine[] = [];
  const all: SeparationEngine[] = [];
  let denoiser: DenoiseEngine | undefined;

  const acquire = (): SeparationEngine => {
    const engine =
      idle.pop() ??
      new SeparationEngine({
        modelsDir: config.modelsDir,
        executionProvider: config.onnx.executionProvider,
        threads: config.onnx.threads,
        tools: config.ffmpeg,
      });
    if (!all.includes(engine)) all.push(engine);
    return engine;
  };

  return {
    async separate(req) {
      const engine = acquire();
      try {
        return await engine.separateFile({ ...req, stems: req.stems as never });
      } finally {
        idle.push(engine);
      }
    },
    async denoise(req) {
      if (!denoiser) {
        const model = resolveModel('dfn3', { modelsDir: config.modelsDir });
        if (!model) {
          throw new Error(`the DeepFilterNet3 model is not installed in ${config.modelsDir}/dfn3: run "npx stemforge models pull dfn3" or set STEMFORGE_MODELS_DIR`);
        }
        denoiser = new DenoiseEngine({ modelDir: model.dir, executionProvider: config.onnx.executionProvider, tools: config.ffmpeg });
      }
      await denoiser.denoiseFile(req);
    },
    async analyze(req) {
      // In a worker thread: analysis takes about a second of CPU and must never block the API.
      const r = await analyzeAudioInThread({ ...req, tools: config.ffmpeg });
      return { bpm: r.bpm, key: r.key };
    },
    hasModel: (name) => isModelInstalled(name, { modelsDir: config.modelsDir }),
    async close() {
      await Promise.all(all.map((e) => e.close()));
      await denoiser?.close();
    },
  };
}
