import { type FileHandle, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioEncoder } from '../audio/encode.ts';
import type { StemName } from '../domain/vocabulary.ts';

const BLOCK_FRAMES = 1 << 16;

/**
 * Stems whose level depends on their own peak over the whole track (MDX-Net's peak normalisation),
 * which is known only at the end: each is written as raw float samples to a file beside the outputs
 * while it is separated, then read back, scaled and encoded, so memory stays flat. Stems not asked
 * for are dropped as they come.
 */
export class PeakNormalizedStems {
  private readonly files = new Map<StemName, { path: string; handle: Promise<FileHandle>; peak: number }>();

  constructor(dir: string, stems: readonly StemName[]) {
    for (const stem of stems) {
      const path = join(dir, `.${stem}.f32`);
      this.files.set(stem, { path, handle: open(path, 'w+'), peak: 0 });
    }
  }

  /** Appends `n` frames of `stem` (planar stereo, `[channel][n]`), interleaved. */
  async write(stem: StemName, planar: Float32Array, n: number): Promise<void> {
    const f = this.files.get(stem);
    if (!f) return;
    const out = new Float32Array(2 * n);
    for (let i = 0; i < n; i++) {
      const l = planar[i]!;
      const r = planar[n + i]!;
      out[2 * i] = l;
      out[2 * i + 1] = r;
      f.peak = Math.max(f.peak, Math.abs(l), Math.abs(r));
    }
    await (await f.handle).write(new Uint8Array(out.buffer));
  }

  /** Encodes every stem scaled down to `maxPeak` where its peak is above it (as `spec_utils.normalize`). */
  async encode(maxPeak: number, encoderFor: (stem: StemName) => AudioEncoder): Promise<void> {
    for (const [stem, f] of this.files) {
      const handle = await f.handle;
      const gain = f.peak > maxPeak ? maxPeak / f.peak : 1;
      const encoder = encoderFor(stem);
      try {
        const block = new Float32Array(2 * BLOCK_FRAMES);
        const bytes = new Uint8Array(block.buffer);
        for (let pos = 0; ; ) {
          const { bytesRead } = await handle.read(bytes, 0, bytes.length, pos);
          if (bytesRead === 0) break;
          pos += bytesRead;
          const chunk = block.slice(0, bytesRead / 4);
          if (gain !== 1) for (let i = 0; i < chunk.length; i++) chunk[i] = chunk[i]! * gain;
          await encoder.write(chunk);
        }
        await encoder.end();
      } catch (err) {
        encoder.abort();
        throw err;
      }
    }
  }

  /** Closes and removes the raw files. */
  async dispose(): Promise<void> {
    for (const f of this.files.values()) {
      await (await f.handle.catch(() => undefined))?.close();
      await rm(f.path, { force: true });
    }
  }
}
