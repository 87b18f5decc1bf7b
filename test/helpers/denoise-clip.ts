import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Cuts the first `seconds` of a file with the real ffmpeg (keeps its format and rate). */
export async function trimClip(from: string, to: string, seconds: number): Promise<string> {
  await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', from, '-t', String(seconds), '-c:a', 'pcm_s16le', to]);
  return to;
}

/**
 * A canonical 44-byte-header 16-bit mono WAV of exactly `totalBytes` bytes (a quiet 440 Hz tone),
 * for testing size limits at the byte.
 */
export function wavOfExactSize(totalBytes: number, sampleRate = 48_000): Buffer {
  const dataBytes = totalBytes - 44;
  if (dataBytes <= 0 || dataBytes % 2) throw new Error('totalBytes must be 44 + an even number');
  const b = Buffer.alloc(totalBytes);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(totalBytes - 8, 4);
  b.write('WAVEfmt ', 8, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < dataBytes / 2; i++)
    b.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), 44 + 2 * i);
  return b;
}
