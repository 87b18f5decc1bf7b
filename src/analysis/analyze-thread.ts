import { parentPort } from 'node:worker_threads';
import { threadData } from '../worker/thread-data.ts';
import { analyzeAudioDetailed, type AnalyzeInput } from './analyze-audio.ts';

/** Worker-thread entry of analyzeAudioInThread: analyses once, posts the result, exits. */
const input = threadData<Omit<AnalyzeInput, 'signal'>>();
try {
  parentPort?.postMessage({ ok: true, result: await analyzeAudioDetailed(input) });
} catch (err) {
  parentPort?.postMessage({ ok: false, message: (err as Error).message });
}
