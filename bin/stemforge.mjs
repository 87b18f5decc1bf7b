#!/usr/bin/env node
// Entry point of the `stemforge` binary: checks the Node version before anything else loads (an
// old Node gets one line, or the project's pinned runtime), then runs the TypeScript sources
// through tsx's loader, or through Node's own type transform where Node runs with
// --experimental-transform-types (the image, which carries no tsx).
import { requireSupportedNode } from './node-runtime.mjs';

await requireSupportedNode();
if (process.features.typescript !== 'transform') {
  const { register } = await import('tsx/esm/api');
  register();
}
await import('../src/cli/main.ts');
