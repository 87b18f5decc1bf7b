import type { SegmentSeparator } from '../../src/separation/segment-separator.ts';

/** The share of the mix each source of {@link shareSeparator} gets: drums, bass, other, vocals. */
export const SHARES = [0.1, 0.2, 0.3, 0.4];

/**
 * A stand-in for the network (no ONNX: for tests of the streaming arithmetic): each source is a
 * fixed share of the segment, so every output sample is known exactly. `bySegment`: the shares are
 * bent by the segment's own loudness, so an output depends on where its segment was cut (a resume
 * that put back the wrong window or input would show).
 */
export function shareSeparator(
  segmentFrames: number,
  o: { bySegment?: boolean } = {},
): SegmentSeparator & { calls: number } {
  return {
    segmentFrames,
    sources: ['drums', 'bass', 'other', 'vocals'],
    calls: 0,
    async separate(mix) {
      this.calls++;
      let energy = 0;
      if (o.bySegment) for (const v of mix) energy += v * v;
      const bend = 1 + Math.tanh(energy / mix.length);
      const out = new Float32Array(8 * segmentFrames);
      SHARES.forEach((share, s) => {
        for (let c = 0; c < 2; c++)
          for (let i = 0; i < segmentFrames; i++)
            out[(s * 2 + c) * segmentFrames + i] = share * bend * mix[c * segmentFrames + i]!;
      });
      return out;
    },
  };
}
