#!/usr/bin/env node
// The bundled ffprobe: see bin/ffmpeg-wasm.mjs.
import { runBundled } from './ffmpeg-wasm.mjs';

await runBundled('ffprobe', process.argv.slice(2));
