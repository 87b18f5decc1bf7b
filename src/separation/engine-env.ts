import type { ExecutionProvider } from './session-options.ts';

/**
 * glibc malloc settings of the separation process, chosen by measurement (docs/separation.md).
 *
 * With onnxruntime's arena off, every intermediate tensor is a fresh allocation, and the large ones
 * are fresh mmaps whose 4 KiB pages fault in one by one: on a virtual machine that cost more than
 * the arithmetic (7.1 s per segment against 1.9 s). `hugetlb=1` makes malloc ask for transparent
 * huge pages (madvise), so a 100 MB tensor faults in 50 times instead of 25,000; `arena_max=1` keeps
 * every thread on the main heap, where that advice applies to the heap too. Tunables are read when
 * a process starts, which is why separation runs in a child process of its own.
 */
export const ENGINE_MALLOC_TUNABLES = [
  'glibc.malloc.hugetlb=1',
  'glibc.malloc.arena_max=1',
  'glibc.malloc.mmap_max=0',
  `glibc.malloc.trim_threshold=${2 ** 40}`,
] as const;

/**
 * The environment of a separation process: `base` plus the tunables above. A tunable the operator
 * already set in GLIBC_TUNABLES keeps the operator's value (`glibc.malloc.hugetlb=0` turns it off).
 * Other C libraries (musl, macOS) ignore the variable. On a GPU (CUDA, WebGPU) the tunables are left
 * out: they tune the CPU provider's per-tensor host allocations, while on a GPU the intermediate
 * tensors live in the GPU provider's own device buffers (and `mmap_max=0` would keep pinned staging
 * buffers on the heap for good).
 */
export function engineProcessEnv(base: NodeJS.ProcessEnv, provider: ExecutionProvider = 'cpu'): NodeJS.ProcessEnv {
  if (provider !== 'cpu') return { ...base };
  const own = (base.GLIBC_TUNABLES ?? '').split(':').filter(Boolean);
  const set = new Set(own.map((t) => t.split('=')[0]));
  const added = ENGINE_MALLOC_TUNABLES.filter((t) => !set.has(t.split('=')[0]));
  return { ...base, GLIBC_TUNABLES: [...own, ...added].join(':') };
}
