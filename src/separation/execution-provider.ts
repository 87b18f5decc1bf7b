import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ExecutionProvider } from './session-options.ts';
import { WEBGPU_INSTALL_HINT, webGpuUnavailable } from './webgpu-adapter.ts';

/**
 * The CUDA execution provider of onnxruntime-node is not in the npm package (too large): its
 * postinstall script fetches it from the Microsoft.ML.OnnxRuntime.Gpu.Linux NuGet package, and this
 * project installs with `ONNXRUNTIME_NODE_INSTALL=skip` (.npmrc), so a GPU worker must fetch it
 * once. These are the two libraries onnxruntime loads when a session asks for CUDA.
 */
export const CUDA_PROVIDER_FILES = ['libonnxruntime_providers_shared.so', 'libonnxruntime_providers_cuda.so'];

/** How an operator makes CUDA available; part of every CUDA error message. */
export const CUDA_INSTALL_HINT =
  'install the CUDA provider with `ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js` ' +
  '(CUDA 12 and cuDNN 9 libraries and an NVIDIA driver are needed on the host; see docs/separation.md, "GPU workers"), ' +
  'or set ORT_EXECUTION_PROVIDER=cpu';

/** An execution provider the operator asked for cannot run here. Never falls back to the CPU. */
export class ExecutionProviderUnavailableError extends Error {}

/** onnxruntime-node's folder of native libraries for this platform. */
export function onnxruntimeBinDir(): string {
  const pkg = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
  return join(dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
}

/**
 * Throws, with what to do, when `provider` cannot load in this installation: called when a worker
 * or an engine starts, so a GPU worker without its CUDA libraries (or an onnxruntime-node without
 * WebGPU) fails at once instead of at its first job (and never runs a job on the CPU instead).
 */
export function assertExecutionProviderInstalled(provider: ExecutionProvider, binDir = onnxruntimeBinDir()): void {
  if (provider === 'webgpu') {
    // Bundled in the npm package where onnxruntime-node builds it (linux x64 here); nothing to install.
    const ort = createRequire(import.meta.url)('onnxruntime-node') as typeof import('onnxruntime-node');
    if (!ort.listSupportedBackends().some((b) => b.name === 'webgpu' && b.bundled)) {
      throw new ExecutionProviderUnavailableError(
        `ORT_EXECUTION_PROVIDER=webgpu: this onnxruntime-node has no WebGPU provider on ${process.platform} ${process.arch}; set ORT_EXECUTION_PROVIDER=cpu`,
      );
    }
    return;
  }
  if (provider !== 'cuda') return;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ExecutionProviderUnavailableError(
      `ORT_EXECUTION_PROVIDER=cuda: onnxruntime-node has CUDA only on linux x64, not ${process.platform} ${process.arch}; set ORT_EXECUTION_PROVIDER=cpu`,
    );
  }
  const missing = CUDA_PROVIDER_FILES.filter((f) => !existsSync(join(binDir, f)));
  if (missing.length > 0) {
    throw new ExecutionProviderUnavailableError(
      `ORT_EXECUTION_PROVIDER=cuda but onnxruntime's CUDA provider is not installed (${missing.join(', ')} missing): ${CUDA_INSTALL_HINT}`,
    );
  }
}

/**
 * The same check, and for WebGPU also that an adapter opens and runs a kernel (about a second, in a
 * child process): called when workers start, so a worker whose GPU cannot be used stops with one line
 * saying what is missing instead of taking jobs.
 */
export async function assertExecutionProviderUsable(
  provider: ExecutionProvider,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  assertExecutionProviderInstalled(provider);
  if (provider !== 'webgpu') return;
  const unavailable = await webGpuUnavailable(env);
  if (unavailable) throw noWebGpu(`${unavailable.missing}; ${onnxruntimeSays(unavailable.message)}`);
}

const noWebGpu = (reason: string) =>
  new ExecutionProviderUnavailableError(
    `ORT_EXECUTION_PROVIDER=webgpu but no WebGPU adapter could be opened (${reason}): ${WEBGPU_INSTALL_HINT}`,
  );

/** onnxruntime's message, first line, without server paths (and without Dawn's preamble). */
const firstLine = (message: string) =>
  message
    .replace(/^.*Failed to get a WebGPU adapter: /s, '')
    .split('\n', 1)[0]!
    .replace(/\/[^\s:'"]*\//g, '')
    .slice(0, 300);

const onnxruntimeSays = (message: string) => `onnxruntime: ${firstLine(message)}`;

/**
 * onnxruntime's own failure to set up a GPU provider rewritten into one actionable message (CUDA: a
 * missing libcudart/libcudnn, no device; WebGPU: no adapter); other errors unchanged.
 */
export function explainProviderError(provider: ExecutionProvider, err: unknown): unknown {
  const message = err instanceof Error ? err.message : String(err);
  if (provider === 'webgpu' && /webgpu|adapter|dawn|vulkan/i.test(message)) {
    return noWebGpu(onnxruntimeSays(message));
  }
  if (provider !== 'cuda' || !/cuda|cudnn|cublas|shared library|provider/i.test(message)) return err;
  return new ExecutionProviderUnavailableError(
    `ORT_EXECUTION_PROVIDER=cuda but onnxruntime could not start CUDA (${firstLine(message)}): ${CUDA_INSTALL_HINT}`,
  );
}
