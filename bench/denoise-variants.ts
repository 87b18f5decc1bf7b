import type { WindowingOptions } from '../src/denoise/channel-enhancer.ts';
import { Denoiser, type DenoiserOptions } from '../src/denoise/denoiser.ts';
import { sharedPath } from '../support/shared.ts';
import { GTCRN_RATE, Gtcrn } from './denoise-gtcrn.ts';
import { resampleSinc } from '../support/denoise-mixes.ts';
import { rnnoise } from './denoise-rnnoise.ts';

/*
 * The named variants of our cleaner that the development benches (denoise-opening.ts,
 * denoise-guard.ts) compare, and the two peers. A variant is a VARIANTS name, optionally with a
 * WINDOWS name: `default+w20c30` runs the network on short windows (docs/denoise.md, "Sustained
 * voices"); `rnnoise` is fed 48 kHz and `gtcrn` 16 kHz (resampled there and back), as
 * bench/denoise.ts runs them.
 */
export const VARIANTS: Record<string, DenoiserOptions> = {
  default: {},
  noguard: { guard: false },
  noheld: { heldVoiceGuard: false },
  cold: { startup: 'none' },
  nohp: { highPassHz: 0 },
  tau2: { normSeconds: 2 },
  tau4: { normSeconds: 4 },
  tau10: { normSeconds: 10 },
  up10d2: { normSeconds: 2, normUpSeconds: 10 },
  coldup10d2: { normSeconds: 2, normUpSeconds: 10, startup: 'none' },
};
const WINDOWS: Record<string, WindowingOptions> = {
  w20c30: { blockFrames: 20, contextFrames: 30, crossfadeFrames: 5 },
  w50c50: { blockFrames: 50, contextFrames: 50, crossfadeFrames: 10 },
  w30c80: { blockFrames: 30, contextFrames: 80, crossfadeFrames: 10 },
};

/** A named variant of ours, or a peer: 48 kHz mono in, 48 kHz out. */
export interface System {
  run: (x: Float32Array) => Promise<Float32Array>;
  close: () => Promise<void>;
}

export async function loadVariant(v: string): Promise<System> {
  if (v === 'rnnoise') return { run: rnnoise, close: async () => {} };
  if (v === 'gtcrn') {
    const g = await Gtcrn.load(sharedPath('models', 'gtcrn', 'gtcrn_simple.onnx'));
    return {
      run: async (x) => resampleSinc(await g.run(resampleSinc(x, 48_000, GTCRN_RATE)), GTCRN_RATE, 48_000),
      close: () => g.close(),
    };
  }
  const [base, win] = v.split('+');
  const opts = VARIANTS[base!];
  if (!opts) throw new Error(`unknown variant ${v} (${[...Object.keys(VARIANTS), 'rnnoise', 'gtcrn'].join(', ')})`);
  const windowing = win ? WINDOWS[win] : undefined;
  if (win && !windowing) throw new Error(`unknown windows ${win} (${Object.keys(WINDOWS).join(', ')})`);
  const d = await Denoiser.load(sharedPath('models', 'dfn3'), opts);
  return { run: (x) => d.channel({ windowing }).enhanceAll(x), close: () => d.close() };
}
