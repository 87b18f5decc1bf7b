import { type DecodeOptions, decodeAudio } from '../src/audio/decode.ts';
import { ENGINE_CHANNELS, ENGINE_SAMPLE_RATE } from '../src/audio/tools.ts';

/** Decodes a whole (short) file into planar channels, through the product's decoder: for tests, benches and tools. */
export async function decodeToPlanar(
  path: string,
  opts: DecodeOptions = {},
): Promise<{ channels: Float32Array[]; sampleRate: number }> {
  const channelCount = opts.channels ?? ENGINE_CHANNELS;
  const chunks: Float32Array[] = [];
  let frames = 0;
  for await (const chunk of decodeAudio(path, opts)) {
    chunks.push(chunk);
    frames += chunk.length / channelCount;
  }
  const channels = Array.from({ length: channelCount }, () => new Float32Array(frames));
  let offset = 0;
  for (const chunk of chunks) {
    const n = chunk.length / channelCount;
    for (let i = 0; i < n; i++)
      for (let c = 0; c < channelCount; c++) channels[c]![offset + i] = chunk[i * channelCount + c]!;
    offset += n;
  }
  return { channels, sampleRate: opts.sampleRate ?? ENGINE_SAMPLE_RATE };
}
