import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { ApiError } from '../../domain/errors.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { BlobNotFoundError } from '../../storage/errors.ts';
import type { JobRow } from '../../store/jobs.ts';
import { jobTitle } from '../present/job-title.ts';
import { readOutputs } from '../read-job.ts';
import { shownFileName } from './outputs.ts';

export interface OutputsZip {
  stream: Readable;
  /** `<song>.zip`, after the job's name or title. */
  fileName: string;
  /** Bytes of the whole archive, known before it is written (the entries are stored, not deflated). */
  size: number | null;
}

/**
 * Every output of a completed job in one ZIP, streamed from the blob store one entry after the
 * other (yazl): never a whole stem in memory, never a temporary file. The entries are stored, not
 * compressed: MP3 and FLAC are compressed already, and deflating a WAV would cost the API process
 * seconds of CPU per stem for little; with every size known up front, so is the archive's.
 */
export async function outputsZip(blobs: BlobStore, row: JobRow): Promise<OutputsZip> {
  if (row.status === 'EXPIRED') throw new ApiError('OUTPUT_EXPIRED');
  const outputs = row.status === 'COMPLETED' ? readOutputs(row) : null;
  if (!outputs) throw new ApiError('JOB_NOT_COMPLETED', 'The job has no outputs to download: it has not completed.');
  const entries = await Promise.all(
    Object.entries(outputs).map(async ([stem, o]) => {
      const stat = await blobs.stat(o.key);
      if (!stat) throw new BlobNotFoundError(o.key);
      return { ...o, fileName: shownFileName(row, stem, o), size: stat.size };
    }),
  );
  const zip = new ZipFile();
  const mtime = new Date(row.completed_at ?? row.created_at);
  for (const e of entries) {
    zip.addReadStreamLazy(e.fileName, { compress: false, size: e.size, mtime }, (cb) => {
      blobs.createReadStream(e.key).then(
        (stream) => cb(null, stream),
        (err: Error) => cb(err, undefined as unknown as NodeJS.ReadableStream),
      );
    });
  }
  // @types/yazl types the callback without its argument: the total size, or -1 when unknown.
  const size = await new Promise<number>((resolve) =>
    (zip.end as (o: object, cb: (total: number) => void) => void)({}, resolve),
  );
  // A blob that fails mid-archive ends the download broken, which the browser reports, rather than
  // a truncated ZIP that looks whole.
  zip.on('error', (err: Error) => (zip.outputStream as Readable).destroy(err));
  const base = jobTitle(row).replace(/\.[^.]{1,5}$/, '') || 'stems';
  return { stream: zip.outputStream as Readable, fileName: `${base}.zip`, size: size >= 0 ? size : null };
}
