import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { SeparationEngine } from '../src/separation/engine.ts';
import {
  CUDA_PROVIDER_FILES,
  ExecutionProviderUnavailableError,
  onnxruntimeBinDir,
} from '../src/separation/execution-provider.ts';
import { SegmentModel } from '../src/separation/segment-model.ts';

// On a GPU worker with the provider installed these failures cannot happen: run where CUDA is absent.
const cudaInstalled = CUDA_PROVIDER_FILES.every((f) => existsSync(join(onnxruntimeBinDir(), f)));

describe.skipIf(cudaInstalled)('ORT_EXECUTION_PROVIDER=cuda without the CUDA provider (real onnxruntime)', () => {
  it('fails the session instead of running on the CPU, and says how to install CUDA', async () => {
    const spec = getModelSpec('htdemucs')!;
    const dir = mkdtempSync(join(tmpdir(), 'sf-cuda-'));
    try {
      const modelPath = resolveModel('htdemucs', { modelsDir: dir })!.files['htdemucs.onnx']!;
      // Straight to onnxruntime, past the engine's file check: onnxruntime's own failure.
      const load = SegmentModel.load(modelPath, spec.stems!, { executionProvider: 'cuda', threads: 1 });
      await expect(load).rejects.toBeInstanceOf(ExecutionProviderUnavailableError);
      await expect(load).rejects.toThrow(/ONNXRUNTIME_NODE_INSTALL=cuda12.*ORT_EXECUTION_PROVIDER=cpu/);
      await expect(load).rejects.not.toThrow(/\/node_modules\//);
      // The same model on the CPU loads: the failure is the provider's, not the model's.
      const cpu = await SegmentModel.load(modelPath, spec.stems!, { executionProvider: 'cpu', threads: 1 });
      await cpu.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops the engine at start, before a separation process runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-cuda-'));
    const engine = new SeparationEngine({ modelsDir: dir, cacheDir: dir, executionProvider: 'cuda' });
    try {
      await expect(engine.start()).rejects.toThrow(/CUDA provider is not installed.*ONNXRUNTIME_NODE_INSTALL=cuda12/);
      expect(engine.pid).toBeUndefined();
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
