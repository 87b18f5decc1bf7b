import { describe, expect, it } from 'vitest';
import { OUTPUT_TYPES } from '../../src/domain/vocabulary.ts';
import {
  denoiseModel,
  getModelSpec,
  isShipped,
  type ModelSpec,
  MODEL_REGISTRY,
  segmentFrames,
  separationModelFor,
  sessionProviders,
} from '../../src/models/registry.ts';
import { DFN3_FILES } from '../../src/denoise/model-files.ts';
import { HTDEMUCS_SAMPLE_RATE, HTDEMUCS_SEGMENT_FRAMES } from '../../src/separation/htdemucs-shapes.ts';
import { htdemucsSessionOptions } from '../../src/separation/session-options.ts';

describe('the model registry decides which model serves what', () => {
  it('serves every output type with one separation model: six stems with htdemucs_6s at BEST only', () => {
    for (const outputType of OUTPUT_TYPES) {
      const serving = MODEL_REGISTRY.filter((m) => m.serves?.outputTypes.includes(outputType));
      expect(serving, outputType).toHaveLength(1);
      expect(separationModelFor(outputType)).toBe(serving[0]);
    }
    expect(separationModelFor('SIX_STEMS').name).toBe('htdemucs_6s');
    expect(separationModelFor('SIX_STEMS').serves?.tiers).toEqual(['BEST']);
    for (const t of ['VOCALS', 'INSTRUMENTAL', 'BOTH', 'FOUR_STEMS'] as const) {
      expect(separationModelFor(t).name).toBe('htdemucs');
      expect(separationModelFor(t).serves?.tiers).toEqual(['FAST', 'BALANCED', 'BEST']);
    }
    expect(denoiseModel().name).toBe('dfn3');
  });

  it('gives the rate and segment the HTDemucs graphs were traced for', () => {
    for (const name of ['htdemucs', 'htdemucs_6s']) {
      const spec = getModelSpec(name)!;
      expect(spec.sampleRate).toBe(HTDEMUCS_SAMPLE_RATE);
      expect(segmentFrames(spec)).toBe(HTDEMUCS_SEGMENT_FRAMES);
    }
    expect(() => segmentFrames(denoiseModel())).toThrow('not a separation model');
    expect(denoiseModel().sampleRate).toBe(48_000);
  });

  it('lists the onnxruntime providers each model asks for, and refuses one it does not run on', () => {
    expect(htdemucsSessionOptions({ executionProvider: 'cpu', threads: 0 }).executionProviders).toEqual(['cpu']);
    expect(htdemucsSessionOptions({ executionProvider: 'cuda', threads: 0 }).executionProviders).toEqual([
      { name: 'cuda', deviceId: 0 },
      'cpu',
    ]);
    expect(sessionProviders(denoiseModel(), 'cuda')).toEqual(['cuda']);
    // WebGPU: HTDemucs on the GPU (the CPU only places what WebGPU has no kernel for), voice cleaning on the CPU.
    expect(htdemucsSessionOptions({ executionProvider: 'webgpu', threads: 0 }).executionProviders).toEqual([
      'webgpu',
      'cpu',
    ]);
    expect(sessionProviders(denoiseModel(), 'webgpu')).toEqual(['cpu']);
    const cpuOnly: ModelSpec = { ...denoiseModel(), name: 'cpu-only', executionProviders: { cpu: ['cpu'] } };
    expect(() => sessionProviders(cpuOnly, 'cuda')).toThrow(
      "the 'cpu-only' model does not run on cuda (it runs on cpu)",
    );
  });

  it('holds the checksums the denoiser checks, and knows which models ship with the install', () => {
    const dfn3 = denoiseModel();
    expect(DFN3_FILES).toEqual(Object.fromEntries(dfn3.files.map((f) => [f.name, f.sha256])));
    expect(MODEL_REGISTRY.filter(isShipped).map((m) => m.name)).toEqual(['htdemucs']);
  });
});
