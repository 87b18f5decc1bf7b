import { readFile, writeFile } from 'node:fs/promises';
import { makeTone } from './audio.ts';

/**
 * Audio files whose container header lies about their length, built with the real ffmpeg and then
 * patched at the byte where each format records its length. ffprobe believes the patched header;
 * a decoder decodes everything that is there.
 */

/** An MP3 (ffmpeg writes an Info/Xing frame) whose frame count claims `claimSeconds`. */
export async function mp3WithLyingXing(path: string, seconds: number, claimSeconds: number): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 44_100 });
  const b = await readFile(path);
  const at = Math.max(b.indexOf('Xing'), b.indexOf('Info'));
  if (at < 0 || at > 4096) throw new Error('no Xing/Info frame');
  const flags = b.readUInt32BE(at + 4);
  if (!(flags & 1)) throw new Error('the Xing frame has no frame count');
  // MPEG-1 Layer III: 1152 samples a frame.
  b.writeUInt32BE(Math.round((claimSeconds * 44_100) / 1152), at + 8);
  await writeFile(path, b);
  return path;
}

/** A FLAC whose STREAMINFO total-samples field claims `claimSeconds`. */
export async function flacWithLyingStreamInfo(path: string, seconds: number, claimSeconds: number): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 44_100 });
  const b = await readFile(path);
  if (b.toString('latin1', 0, 4) !== 'fLaC' || (b[4]! & 0x7f) !== 0) throw new Error('no STREAMINFO first');
  // STREAMINFO starts at 8; bytes 18..25 hold 20 bits rate, 3 channels, 5 bits depth, 36 bits total samples.
  const packed = b.readBigUInt64BE(18);
  const mask = (1n << 36n) - 1n;
  b.writeBigUInt64BE((packed & ~mask) | BigInt(Math.round(claimSeconds * 44_100)), 18);
  await writeFile(path, b);
  return path;
}

/** An M4A (AAC) whose mvhd and mdhd durations claim `claimSeconds`. */
export async function m4aWithLyingDuration(path: string, seconds: number, claimSeconds: number): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 48_000 });
  const b = await readFile(path);
  for (const box of ['mvhd', 'mdhd']) {
    const at = b.indexOf(box);
    if (at < 0) throw new Error(`no ${box}`);
    const v1 = b[at + 4] === 1;
    const timescale = b.readUInt32BE(at + (v1 ? 24 : 16));
    const claim = Math.round(claimSeconds * timescale);
    if (v1) b.writeBigUInt64BE(BigInt(claim), at + 28);
    else b.writeUInt32BE(claim, at + 20);
  }
  await writeFile(path, b);
  return path;
}

/** A WebM (Opus) whose Segment Info Duration claims `claimSeconds`. */
export async function webmWithLyingDuration(path: string, seconds: number, claimSeconds: number): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 48_000 });
  const b = await readFile(path);
  const at = b.indexOf(Buffer.from([0x44, 0x89]));
  const size = b[at + 2]! & 0x0f;
  // Duration is in TimecodeScale units (ffmpeg writes 1 ms).
  if (size === 8) b.writeDoubleBE(claimSeconds * 1000, at + 3);
  else if (size === 4) b.writeFloatBE(claimSeconds * 1000, at + 3);
  else throw new Error('no Duration element');
  await writeFile(path, b);
  return path;
}

/** A WAV whose data chunk claims `claimSeconds` (decoders stop there too: the lie is consistent). */
export async function wavWithLyingDataSize(path: string, seconds: number, claimSeconds: number): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 44_100 });
  const b = await readFile(path);
  const at = b.indexOf('data');
  b.writeUInt32LE(Math.round(claimSeconds * 44_100) * 4, at + 4);
  await writeFile(path, b);
  return path;
}

/** An Ogg (Opus or Vorbis) whose last page's granule position claims `claimSeconds`, CRC recomputed. */
export async function oggWithLyingGranule(
  path: string,
  seconds: number,
  claimSeconds: number,
  granuleRate: number,
): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 48_000 });
  const b = await readFile(path);
  const at = b.lastIndexOf('OggS');
  b.writeBigInt64LE(BigInt(Math.round(claimSeconds * granuleRate)), at + 6);
  const segments = b[at + 26]!;
  let length = 27 + segments;
  for (let i = 0; i < segments; i++) length += b[at + 27 + i]!;
  b.writeUInt32LE(0, at + 22);
  b.writeUInt32LE(oggCrc(b.subarray(at, at + length)), at + 22);
  await writeFile(path, b);
  return path;
}

/** Ogg's page checksum: CRC-32, polynomial 0x04c11db7, no reflection, initial value 0. */
function oggCrc(page: Buffer): number {
  let crc = 0;
  for (const byte of page) {
    crc ^= byte << 24;
    for (let k = 0; k < 8; k++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    crc >>>= 0;
  }
  return crc >>> 0;
}

/** The first `keepBytes` of an MP3 of `seconds`: its Xing frame still claims the whole length. */
export async function truncatedMp3(path: string, seconds: number, keepBytes: number): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 44_100 });
  await writeFile(path, (await readFile(path)).subarray(0, keepBytes));
  return path;
}

/** A WAV that reads as `seconds` of audio but names a codec no decoder has (format tag 0x9999). */
export async function wavWithUnknownCodec(path: string, seconds: number): Promise<string> {
  await makeTone(path, seconds, { sampleRate: 44_100 });
  const b = await readFile(path);
  b.writeUInt16LE(0x9999, b.indexOf('fmt ') + 8);
  await writeFile(path, b);
  return path;
}
