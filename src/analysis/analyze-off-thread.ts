import { startThread } from '../worker/thread.ts';
import { AnalysisError, type AnalyzeInput, type DetailedAnalysis } from './analyze-audio.ts';

type Reply = { ok: true; result: DetailedAnalysis } | { ok: false; message: string };

/**
 * analyzeAudio in a worker thread, so a server's event loop never stalls for the second or two the
 * DSP takes. Resolves to `{ bpm, key }` plus details; rejects with an AnalysisError when the audio
 * cannot be analysed, the thread dies, or `signal` aborts (the thread is then terminated).
 */
export function analyzeAudioInThread(input: AnalyzeInput): Promise<DetailedAnalysis> {
  const { signal, ...data } = input;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AnalysisError('analysis aborted'));
    const worker = startThread(new URL('./analyze-thread.ts', import.meta.url), { workerData: data });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      settle(() => reject(new AnalysisError('analysis aborted')));
      void worker.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: Reply) => {
      settle(() => (reply.ok ? resolve(reply.result) : reject(new AnalysisError(reply.message))));
    });
    worker.once('error', (err) =>
      settle(() => reject(new AnalysisError(`analysis thread failed: ${err.message}`, { cause: err }))),
    );
    worker.once('exit', (code) =>
      settle(() => reject(new AnalysisError(`analysis thread exited (code ${code}) without a result`))),
    );
  });
}
