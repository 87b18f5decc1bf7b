import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertExecutionProviderInstalled,
  CUDA_PROVIDER_FILES,
  ExecutionProviderUnavailableError,
  explainProviderError,
} from '../../src/separation/execution-provider.ts';
import { WEBGPU_INSTALL_HINT } from '../../src/separation/webgpu-adapter.ts';

const linuxX64 = process.platform === 'linux' && process.arch === 'x64';

describe('CUDA execution provider check', () => {
  it('asks nothing of a CPU worker', () => {
    expect(() => assertExecutionProviderInstalled('cpu', '/nonexistent')).not.toThrow();
  });

  it.runIf(linuxX64)('names the missing libraries and the install command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-ep-'));
    try {
      writeFileSync(join(dir, CUDA_PROVIDER_FILES[0]!), '');
      let caught: unknown;
      try {
        assertExecutionProviderInstalled('cuda', dir);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ExecutionProviderUnavailableError);
      const message = (caught as Error).message;
      expect(message).toContain(CUDA_PROVIDER_FILES[1]);
      expect(message).not.toContain(`${CUDA_PROVIDER_FILES[0]},`);
      expect(message).toContain('ONNXRUNTIME_NODE_INSTALL=cuda12');
      expect(message).toContain('ORT_EXECUTION_PROVIDER=cpu');
      expect(message).not.toContain(dir);
      // Both libraries present: the check passes (loading them is onnxruntime's job).
      writeFileSync(join(dir, CUDA_PROVIDER_FILES[1]!), '');
      expect(() => assertExecutionProviderInstalled('cuda', dir)).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("turns onnxruntime's CUDA failure into the operator's message, without server paths", () => {
    const ort = new Error(
      'OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load library /opt/x/libcudnn.so.9: cannot open shared object file',
    );
    const err = explainProviderError('cuda', ort) as Error;
    expect(err).toBeInstanceOf(ExecutionProviderUnavailableError);
    expect(err.message).toContain('libcudnn.so.9');
    expect(err.message).not.toContain('/opt/x/');
    expect(err.message).toContain('ONNXRUNTIME_NODE_INSTALL=cuda12');
    const other = new Error('Got invalid dimensions for input');
    expect(explainProviderError('cuda', other)).toBe(other);
    expect(explainProviderError('cpu', ort)).toBe(ort);
  });
});

describe('WebGPU execution provider check', () => {
  it.runIf(linuxX64)('finds WebGPU bundled in onnxruntime-node, nothing to install', () => {
    expect(() => assertExecutionProviderInstalled('webgpu')).not.toThrow();
  });

  it("turns onnxruntime's missing adapter into the operator's message, without server paths", () => {
    const ort = new Error(
      '/onnxruntime_src/onnxruntime/core/providers/webgpu/webgpu_context.cc:136 Initialize adapter_result.status == Success was false. Failed to get a WebGPU adapter: No supported adapters',
    );
    const err = explainProviderError('webgpu', ort) as Error;
    expect(err).toBeInstanceOf(ExecutionProviderUnavailableError);
    expect(err.message).toBe(
      `ORT_EXECUTION_PROVIDER=webgpu but no WebGPU adapter could be opened (onnxruntime: No supported adapters): ${WEBGPU_INSTALL_HINT}`,
    );
    const other = new Error('Got invalid dimensions for input');
    expect(explainProviderError('webgpu', other)).toBe(other);
    expect(explainProviderError('cpu', ort)).toBe(ort);
  });
});
