#!/usr/bin/env node
// Runs a TypeScript file (benchmarks, scripts) with tsx's loader: `node bin/run-ts.mjs file.ts args...`.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { requireSupportedNode } from './node-runtime.mjs';

await requireSupportedNode();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bin/run-ts.mjs <file.ts> [args...]');
  process.exit(2);
}
const { register } = await import('tsx/esm/api');
register();
process.argv = [process.argv[0], resolve(file), ...rest];
await import(pathToFileURL(resolve(file)).href);
