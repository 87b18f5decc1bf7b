import { parentPort } from 'node:worker_threads';
import { threadData } from '../worker/thread-data.ts';
import { denoiseFileWith } from './denoise-file.ts';
import { Denoiser } from './denoiser.ts';
import { serializeError, type EngineThreadData, type FromThread, type ToThread } from './engine-protocol.ts';

/*
 * Worker-thread side of DenoiseEngine: loads the model once (checksums, ONNX sessions) and runs
 * jobs one after another, so inference and DSP never block the caller's event loop.
 */

const port = parentPort!;
const data = threadData<EngineThreadData>();
const send = (msg: FromThread) => port.postMessage(msg);
const running = new Map<number, AbortController>();
let queue: Promise<void> = Promise.resolve();

const loaded = Denoiser.load(data.modelDir, {
  executionProvider: data.executionProvider,
  threads: data.threads,
  highPassHz: data.highPassHz,
  startup: data.startup,
  guard: data.guard,
});
loaded.then(
  () => send({ type: 'ready' }),
  (err) => send({ type: 'load-failed', error: serializeError(err) }),
);

port.on('message', (msg: ToThread) => {
  if (msg.type === 'cancel') {
    running.get(msg.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(msg.id, controller);
  queue = queue.then(async () => {
    try {
      const denoiser = await loaded;
      let lastSent = -1;
      const result = await denoiseFileWith(denoiser, {
        inputPath: msg.inputPath,
        outputPath: msg.outputPath,
        format: msg.format,
        attenuationLimitDb: msg.attenuationLimitDb,
        tools: data.tools,
        signal: controller.signal,
        onProgress: (fraction) => {
          // About one message per percent is plenty for a progress bar or a job record.
          if (fraction - lastSent >= 0.01 || fraction === 1) {
            lastSent = fraction;
            send({ type: 'progress', id: msg.id, fraction });
          }
        },
      });
      send({ type: 'done', id: msg.id, ...result });
    } catch (err) {
      send({ type: 'failed', id: msg.id, error: serializeError(err) });
    } finally {
      running.delete(msg.id);
    }
  });
});
