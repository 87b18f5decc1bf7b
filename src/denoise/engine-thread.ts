import { parentPort } from 'node:worker_threads';
import { threadData } from '../offload/thread-data.ts';
import { remoteError, serveRpc } from '../offload/rpc.ts';
import { denoiseFileWith } from './denoise-file.ts';
import { Denoiser } from './denoiser.ts';
import type { DenoiseCall, DenoiseReply, EngineThreadData, FromThread } from './engine-protocol.ts';

/*
 * Worker-thread side of DenoiseEngine: loads the model once (checksums, ONNX sessions) and runs
 * jobs one after another, so inference and DSP never block the caller's event loop.
 */

const port = parentPort!;
const data = threadData<EngineThreadData>();
const send = (msg: FromThread) => port.postMessage(msg);

const loaded = Denoiser.load(data.modelDir, {
  executionProvider: data.executionProvider,
  threads: data.threads,
  highPassHz: data.highPassHz,
  startup: data.startup,
  guard: data.guard,
});
loaded.then(
  () => send({ type: 'ready' }),
  (err) => send({ type: 'load-failed', error: remoteError(err) }),
);

port.on(
  'message',
  serveRpc<DenoiseCall, DenoiseReply>(send, async (call, { signal, onProgress }) => {
    const denoiser = await loaded;
    let lastSent = -1;
    const result = await denoiseFileWith(denoiser, {
      ...call,
      tools: data.tools,
      signal,
      onProgress: (fraction) => {
        // About one message per percent is plenty for a progress bar or a job record.
        if (fraction - lastSent >= 0.01 || fraction === 1) {
          lastSent = fraction;
          onProgress(fraction);
        }
      },
    });
    return { durationSeconds: result.durationSeconds, channels: result.channels, sampleRate: result.sampleRate };
  }),
);
