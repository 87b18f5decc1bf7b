/**
 * What the stream needs from a model: one fixed-length stereo segment in, its sources out. Its own
 * file so that the stream, the flip-averaging wrapper and the quality settings need not import
 * each other.
 */
export interface SegmentSeparator {
  readonly segmentFrames: number;
  readonly sources: readonly string[];
  /** `mix`: `[channel][segmentFrames]`; result: `[source][channel][segmentFrames]`. */
  separate(mix: Float32Array): Promise<Float32Array>;
}
