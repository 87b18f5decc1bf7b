import type { Readable, Writable } from 'node:stream';
import { BlobTooLargeError } from './errors.ts';

/**
 * Copies `source` into `dest` with backpressure, counting bytes, and resolves with the count once
 * `dest` has finished. Once more than `maxBytes` have arrived it stops reading at once, destroys
 * `dest` and rejects with BlobTooLargeError.
 *
 * Unlike `stream.pipeline`, a failure does not destroy `source`: when the source is an HTTP request,
 * destroying it would close the socket before the handler could answer 400. The source is left
 * paused; the caller drains or destroys it.
 */
export function copyWithLimit(source: Readable, dest: Writable, maxBytes?: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let size = 0;
    let ended = false;
    let settled = false;

    const cleanup = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', fail);
      source.off('close', onSourceClose);
      dest.off('drain', onDrain);
      dest.off('error', fail);
      dest.off('finish', onFinish);
    };
    function fail(err: Error) {
      if (settled) return;
      settled = true;
      cleanup();
      source.unpipe?.(dest);
      source.pause();
      // The destination may still report its own teardown error; it is no longer interesting.
      dest.on('error', () => {});
      dest.destroy(err);
      reject(err);
    }
    function onData(chunk: Buffer | string) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (maxBytes !== undefined && size > maxBytes) {
        fail(new BlobTooLargeError(maxBytes));
        return;
      }
      if (!dest.write(buf)) source.pause();
    }
    function onDrain() {
      if (!settled) source.resume();
    }
    function onEnd() {
      ended = true;
      dest.end();
    }
    function onSourceClose() {
      if (!ended) fail(new Error('the body stream closed before it ended'));
    }
    function onFinish() {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(size);
    }

    source.on('error', fail);
    source.on('close', onSourceClose);
    source.on('end', onEnd);
    dest.on('error', fail);
    dest.on('drain', onDrain);
    dest.on('finish', onFinish);
    source.on('data', onData);
    source.resume();
  });
}
