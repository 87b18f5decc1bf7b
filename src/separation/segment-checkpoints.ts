import { constants, readFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { StreamCheckpoints, StreamState } from './stream-checkpoints.ts';
import type { StemSink } from './separate-stream.ts';
import type { StemName } from './stems.ts';

/** The JSON head of the `state` file; each pass's `acc` (`rows x used`) and `weights` follow as float32. */
interface StateHeader {
  identity: string;
  next: number;
  emitted: number;
  passes: Array<{ base: number; used: number; rows: number }>;
}

/**
 * The code that made a checkpoint: another release may separate differently, so its checkpoints are
 * not resumed (an upgrade in the middle of a job starts that job's separation over).
 */
const RELEASE: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/** Interleaved stereo float32: bytes per frame in the stems' files. */
const FRAME_BYTES = 8;
const STATE = 'state';
/** Read back in chunks of this many frames when the stems are written again. */
const REPLAY_FRAMES = 1 << 16;

/**
 * A separation's checkpoints in a folder that outlives the process (the job stage's
 * `checkpointDir`): each stem's samples as written so far (`<stem>.f32`, raw float32 stereo) and
 * the state after the last finished segment (`state`, replaced whole by a rename). A run that
 * finds them with the same identity writes the kept samples to its encoders again (encoders stream:
 * only the same samples in the same order give the same file) and goes on from the next segment,
 * so its output is the same as an uninterrupted run's, bit for bit. Anything else (no state, another
 * release, input, model or setting, files shorter than the state says) starts over.
 */
export class SegmentCheckpoints implements StreamCheckpoints {
  /** The sinks to give the stream: each keeps its samples in the folder, then passes them on. */
  readonly sinks: Partial<Record<StemName, StemSink>>;
  private readonly files = new Map<StemName, { handle: FileHandle; bytes: number }>();
  /** The identity `resume` settled on, written into every state. */
  private identity = '';

  private constructor(
    private readonly dir: string,
    private readonly targets: Partial<Record<StemName, StemSink>>,
    /** The model as loaded (weights, graph rewrites, provider): part of every identity. */
    private readonly model: string,
  ) {
    this.sinks = Object.fromEntries(
      (Object.keys(targets) as StemName[]).map((stem) => [
        stem,
        { write: (pcm: Float32Array) => this.keep(stem, pcm) },
      ]),
    );
  }

  static async open(
    dir: string,
    targets: Partial<Record<StemName, StemSink>>,
    model: string,
  ): Promise<SegmentCheckpoints> {
    await mkdir(dir, { recursive: true });
    const cp = new SegmentCheckpoints(dir, targets, model);
    for (const stem of Object.keys(targets) as StemName[]) {
      // Read-write, created if missing, not truncated (the state may name its samples), not append
      // mode (Linux ignores the position of a write in append mode).
      const handle = await open(join(dir, `${stem}.f32`), constants.O_RDWR | constants.O_CREAT);
      cp.files.set(stem, { handle, bytes: 0 });
    }
    return cp;
  }

  async resume(identity: string): Promise<StreamState | null> {
    const full = JSON.stringify({ release: RELEASE, model: this.model, stream: identity });
    const state = await this.readState(full);
    if (!state) {
      // Forget a state of another identity before any sample of this run lands in the files.
      await rm(join(this.dir, STATE), { force: true });
      for (const file of this.files.values()) {
        await file.handle.truncate(0);
        file.bytes = 0;
      }
      this.identity = full;
      return null;
    }
    const bytes = state.emitted * FRAME_BYTES;
    for (const [stem, file] of this.files) {
      await file.handle.truncate(bytes);
      file.bytes = bytes;
      await this.replay(file.handle, bytes, this.targets[stem]!);
    }
    this.identity = full;
    return state;
  }

  async save(state: StreamState): Promise<void> {
    const header = Buffer.from(
      JSON.stringify({
        identity: this.identity,
        next: state.next,
        emitted: state.emitted,
        passes: state.passes.map((p) => ({
          base: p.base,
          used: p.weights.length,
          rows: p.weights.length > 0 ? p.acc.length / p.weights.length : 0,
        })),
      } satisfies StateHeader),
    );
    const parts: Buffer[] = [Buffer.alloc(4), header];
    parts[0]!.writeUInt32LE(header.length);
    for (const p of state.passes) parts.push(bytesOf(p.acc), bytesOf(p.weights));
    const tmp = join(this.dir, `${STATE}.tmp`);
    // A state never names samples the files do not hold yet: they were written (awaited) first.
    await writeWhole(tmp, Buffer.concat(parts));
    await rename(tmp, join(this.dir, STATE));
  }

  async close(): Promise<void> {
    for (const file of this.files.values()) await file.handle.close();
    this.files.clear();
  }

  private async keep(stem: StemName, pcm: Float32Array): Promise<void> {
    const file = this.files.get(stem)!;
    const data = bytesOf(pcm);
    await file.handle.write(data, 0, data.length, file.bytes);
    file.bytes += data.length;
    await this.targets[stem]!.write(pcm);
  }

  private async replay(handle: FileHandle, bytes: number, sink: StemSink): Promise<void> {
    for (let at = 0; at < bytes; at += REPLAY_FRAMES * FRAME_BYTES) {
      const n = Math.min(REPLAY_FRAMES * FRAME_BYTES, bytes - at);
      const chunk = new Float32Array(n / 4);
      await handle.read(new Uint8Array(chunk.buffer), 0, n, at);
      await sink.write(chunk);
    }
  }

  /** The saved state when it belongs to this identity and the stems' files hold what it says. */
  private async readState(identity: string): Promise<StreamState | null> {
    const buf = await readFile(join(this.dir, STATE)).catch(() => null);
    if (!buf || buf.length < 4) return null;
    const headerEnd = 4 + buf.readUInt32LE(0);
    let header: StateHeader;
    try {
      header = JSON.parse(buf.subarray(4, headerEnd).toString());
    } catch {
      return null;
    }
    if (header.identity !== identity) return null;
    for (const stem of this.files.keys()) {
      const size = (await stat(join(this.dir, `${stem}.f32`))).size;
      if (size < header.emitted * FRAME_BYTES) return null;
    }
    if ((buf.length - headerEnd) % 4 !== 0) return null;
    const floats = new Float32Array((buf.length - headerEnd) / 4);
    new Uint8Array(floats.buffer).set(buf.subarray(headerEnd));
    let at = 0;
    const take = (n: number) => {
      at += n;
      return floats.slice(at - n, at);
    };
    const passes = header.passes.map(({ base, used, rows }) => ({ base, acc: take(rows * used), weights: take(used) }));
    return at === floats.length ? { next: header.next, emitted: header.emitted, passes } : null;
  }
}

function bytesOf(a: Float32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

async function writeWhole(path: string, data: Buffer): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.write(data, 0, data.length, 0);
  } finally {
    await handle.close();
  }
}
