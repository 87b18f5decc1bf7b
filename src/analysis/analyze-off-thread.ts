import { RpcClient } from '../offload/rpc.ts';
import { startThread } from '../offload/start-thread.ts';
import { AnalysisError, type AnalyzeInput, type DetailedAnalysis } from './analyze-audio.ts';

/**
 * analyzeAudio in a worker thread, so a server's event loop never stalls for the second or two the
 * DSP takes. Resolves to `{ bpm, key }` plus details; rejects with an AnalysisError when the audio
 * cannot be analysed, the thread dies, or `signal` aborts (the thread is then terminated).
 */
export async function analyzeAudioInThread(input: AnalyzeInput): Promise<DetailedAnalysis> {
  const { signal, ...request } = input;
  if (signal?.aborted) throw new AnalysisError('analysis aborted');
  // One thread per analysis: it holds no model worth keeping warm.
  const worker = startThread(new URL('./analyze-thread.ts', import.meta.url));
  const rpc = new RpcClient<typeof request, DetailedAnalysis>(
    (m) => worker.postMessage(m),
    (e) => new AnalysisError(e.message),
  );
  worker.on('message', (m) => rpc.receive(m));
  worker.once('error', (err) =>
    rpc.failAll(new AnalysisError(`analysis thread failed: ${err.message}`, { cause: err })),
  );
  worker.once('exit', (code) =>
    rpc.failAll(new AnalysisError(`analysis thread exited (code ${code}) without a result`)),
  );
  // Aborting fails the call at once and ends the thread, whatever step it is in.
  const onAbort = () => rpc.failAll(new AnalysisError('analysis aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await rpc.call(request);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
