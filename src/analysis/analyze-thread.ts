import { parentPort } from 'node:worker_threads';
import { serveRpc } from '../offload/rpc.ts';
import { analyzeAudioDetailed, type AnalyzeInput, type DetailedAnalysis } from './analyze-audio.ts';

/** Worker-thread entry of analyzeAudioInThread: answers its call; the caller then ends the thread. */
const port = parentPort!;
port.on(
  'message',
  serveRpc<Omit<AnalyzeInput, 'signal'>, DetailedAnalysis>(
    (m) => port.postMessage(m),
    (input) => analyzeAudioDetailed(input),
  ),
);
