// Worker-thread entry of the separation engine: loads HTDemucs once, then runs jobs one at a time
// off the main thread (decode, DSP, inference, encode), reporting progress back.
import { parentPort } from 'node:worker_threads';
import { threadData } from '../worker/thread-data.ts';
import { ENGINE_SAMPLE_RATE } from '../audio/tools.ts';
import { verifyFileCached } from '../models/verify.ts';
import type { EngineThreadData, FromThread, ToThread } from './engine-protocol.ts';
import { separateFileWith } from './separate-file.ts';
import { SegmentModel } from './segment-model.ts';

const data = threadData<EngineThreadData>();
const port = parentPort!;
const post = (m: FromThread) => port.postMessage(m);
const running = new Map<number, AbortController>();

async function load(): Promise<SegmentModel | undefined> {
  const t0 = performance.now();
  try {
    if (data.sha256) await verifyFileCached(data.modelPath, data.sha256, data.cacheDir);
    const model = await SegmentModel.load(data.modelPath, { executionProvider: data.executionProvider, threads: data.threads });
    post({ type: 'ready', loadMs: performance.now() - t0 });
    return model;
  } catch (err) {
    post({ type: 'load-error', message: (err as Error).message });
    return undefined;
  }
}

const modelReady = load();
let queue: Promise<void> = Promise.resolve();

port.on('message', (msg: ToThread) => {
  if (msg.type === 'cancel') {
    running.get(msg.id)?.abort(new Error('separation cancelled'));
    return;
  }
  const controller = new AbortController();
  running.set(msg.id, controller);
  // Jobs run one after another: the model uses every intra-op thread it was given.
  queue = queue.then(async () => {
    const model = await modelReady;
    try {
      if (!model) throw new Error('the separation model failed to load');
      controller.signal.throwIfAborted();
      const result = await separateFileWith(model, msg.request, {
        sampleRate: ENGINE_SAMPLE_RATE,
        tools: data.tools,
        signal: controller.signal,
        onProgress: (fraction) => post({ type: 'progress', id: msg.id, fraction }),
      });
      post({ type: 'done', id: msg.id, result });
    } catch (err) {
      post({ type: 'error', id: msg.id, message: (err as Error).message, aborted: controller.signal.aborted });
    } finally {
      running.delete(msg.id);
    }
  });
});
