import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodeNode } from '../onnx/node.ts';
import { ProtoWriter } from '../onnx/protobuf.ts';

/** How an operator makes WebGPU available; part of every WebGPU error message (execution-provider.ts). */
export const WEBGPU_INSTALL_HINT =
  'onnxruntime runs WebGPU through Dawn over Vulkan: install the Vulkan loader (Debian: libvulkan1) and a Vulkan driver ' +
  "(NVIDIA's driver with its Vulkan ICD, Mesa's radv or anv; lavapipe, Mesa's CPU driver, needs Mesa 25: " +
  'Debian 12 bookworm-backports), see docs/separation.md, "WebGPU workers", or set ORT_EXECUTION_PROVIDER=cpu';

/** A one-node float graph (y = x + x), enough for onnxruntime to open a WebGPU device and run a kernel on it. */
function probeModel(): Buffer {
  const valueInfo = (w: ProtoWriter, name: string) =>
    w
      .string(1, name)
      .message(2, (t) => t.message(1, (tt) => tt.varint(1, 1).message(2, (s) => s.message(1, (d) => d.varint(1, 4)))));
  return new ProtoWriter()
    .varint(1, 8)
    .message(7, (g) =>
      g
        .bytes(1, encodeNode({ op: 'Add', name: 'add', inputs: ['x', 'x'], outputs: ['y'] }))
        .string(2, 'webgpu-probe')
        .message(11, (i) => valueInfo(i, 'x'))
        .message(12, (o) => valueInfo(o, 'y')),
    )
    .message(8, (o) => o.string(1, '').varint(2, 13))
    .finish();
}

/** Run in a child process: WebGPU's device is process-wide in onnxruntime and is not kept by the caller. */
const PROBE = `
const ort = await import(process.argv[1]);
const model = Buffer.from(process.argv[2], 'base64');
try {
  const s = await ort.InferenceSession.create(model, { executionProviders: ['webgpu'] });
  const x = new ort.Tensor('float32', Float32Array.from([1, 2, 3, 4]), [4]);
  const y = (await s.run({ x })).y.data;
  process.stdout.write(JSON.stringify({ ok: y[3] === 8 }));
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, message: String(err?.message ?? err) }));
}`;

/** Whether the Vulkan loader can be found where the dynamic linker looks on Linux. */
function vulkanLoaderPresent(env: NodeJS.ProcessEnv): boolean {
  const dirs = [
    ...(env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    '/usr/lib/x86_64-linux-gnu',
    '/usr/lib/aarch64-linux-gnu',
    '/lib/x86_64-linux-gnu',
    '/usr/lib64',
    '/usr/lib',
    '/usr/local/lib',
  ];
  return dirs.some((d) => existsSync(join(d, 'libvulkan.so.1')));
}

/** Why WebGPU cannot be used here: what is missing, and onnxruntime's own message. */
export interface WebGpuUnavailable {
  missing: string;
  message: string;
}

/**
 * Whether onnxruntime can open a WebGPU adapter here and run a kernel on it: undefined when it can,
 * else what is missing. Takes about a second: a child process opens the device and exits.
 * execution-provider.ts turns the answer into the start-up error.
 */
export async function webGpuUnavailable(env: NodeJS.ProcessEnv = process.env): Promise<WebGpuUnavailable | undefined> {
  const ort = pathToFileURL(createRequire(import.meta.url).resolve('onnxruntime-node')).href;
  const result = await new Promise<{ ok: boolean; message?: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', PROBE, ort, probeModel().toString('base64')],
      { env, timeout: 120_000, maxBuffer: 1 << 20 },
      (err, stdout) => {
        try {
          resolve(JSON.parse(stdout) as { ok: boolean; message?: string });
        } catch {
          resolve({ ok: false, message: err ? `the probe process failed (${err.message})` : stdout });
        }
      },
    );
  });
  if (result.ok) return undefined;
  return {
    missing:
      process.platform === 'linux' && !vulkanLoaderPresent(env)
        ? 'the Vulkan loader libvulkan.so.1 is not installed'
        : 'no Vulkan driver offers a usable adapter',
    message: result.message ?? 'the probe kernel returned a wrong value',
  };
}
