import { describe, expect, it } from 'vitest';
import { ENGINE_MALLOC_TUNABLES, engineProcessEnv } from '../../src/separation/engine-env.ts';

describe('environment of the separation process', () => {
  it('adds the malloc tunables and keeps the rest of the environment', () => {
    const env = engineProcessEnv({ PATH: '/usr/bin', FOO: 'bar' });
    expect(env.GLIBC_TUNABLES?.split(':')).toEqual([...ENGINE_MALLOC_TUNABLES]);
    expect(env.GLIBC_TUNABLES).toContain('glibc.malloc.hugetlb=1');
    expect(env).toMatchObject({ PATH: '/usr/bin', FOO: 'bar' });
  });

  it("keeps an operator's own tunables and their values", () => {
    const env = engineProcessEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0:glibc.malloc.tcache_count=0' });
    const tunables = env.GLIBC_TUNABLES!.split(':');
    expect(tunables.slice(0, 2)).toEqual(['glibc.malloc.hugetlb=0', 'glibc.malloc.tcache_count=0']);
    expect(tunables).not.toContain('glibc.malloc.hugetlb=1');
    expect(tunables.slice(2)).toEqual(ENGINE_MALLOC_TUNABLES.filter((t) => !t.startsWith('glibc.malloc.hugetlb=')));
  });
});

describe('environment of a GPU (CUDA, WebGPU) separation process', () => {
  it('leaves the CPU malloc tunables out and the rest as is', () => {
    const env = engineProcessEnv({ PATH: '/usr/bin', GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0' }, 'cuda');
    expect(env).toEqual({ PATH: '/usr/bin', GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0' });
    expect(engineProcessEnv({ PATH: '/usr/bin' }, 'webgpu')).toEqual({ PATH: '/usr/bin' });
    expect(engineProcessEnv({}, 'cpu').GLIBC_TUNABLES?.split(':')).toEqual([...ENGINE_MALLOC_TUNABLES]);
  });
});
