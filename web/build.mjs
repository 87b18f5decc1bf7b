// Builds the dashboard into web/dist with esbuild (already in the dependency tree through tsx): one
// bundled, minified ES module and one stylesheet with content-hashed names, and index.html pointing
// at them. `npm ci` runs this through the `prepare` script; the server serves web/dist.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
const started = performance.now();

// Type-check web/ against the server's contract types first (web/tsconfig.json: the DOM library is
// separate from the server's program). An install without dev dependencies has no TypeScript: it
// builds unchecked, which is what esbuild does anyway.
const tsc = join(here, '../node_modules/typescript/bin/tsc');
if (existsSync(tsc) && !process.argv.includes('--no-check')) {
  const check = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });
  if (check.status !== 0) {
    console.error('web/: type errors (see above); the dashboard was not built.');
    process.exit(1);
  }
}

await rm(out, { recursive: true, force: true });
const common = {
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: 'linked',
  target: ['chrome110', 'firefox115', 'safari16'],
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
};
/** The output file (name only) built from an entry point. */
const outputOf = (result, entry) =>
  Object.entries(result.metafile.outputs)
    .find(([, o]) => o.entryPoint === entry)[0]
    .split('/')
    .pop();

// The tempo and pitch node's AudioWorklet module is loaded by URL (player/stretch.ts): built first,
// so that the app can be told its hashed name.
const worklet = await build({
  ...common,
  entryPoints: { 'stretch-worklet': join(here, 'src/player/stretch-worklet.ts') },
});
const workletFile = outputOf(worklet, 'web/src/player/stretch-worklet.ts');
const result = await build({
  ...common,
  entryPoints: { app: join(here, 'src/main.tsx'), style: join(here, 'src/style.css') },
  // The stretch library's main-thread half is a chunk of its own, fetched when tempo or pitch first changes.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { STRETCH_WORKLET_URL: JSON.stringify(`/assets/${workletFile}`) },
});

const js = outputOf(result, 'web/src/main.tsx');
const css = outputOf(result, 'web/src/style.css');
const html = (await readFile(join(here, 'index.html'), 'utf8')).replace('%JS%', js).replace('%CSS%', css);
await writeFile(join(out, 'index.html'), html);
await copyFile(join(here, 'favicon.svg'), join(out, 'favicon.svg'));

const size = async (file) => {
  const body = await readFile(join(out, 'assets', file));
  return `${(body.length / 1024).toFixed(1)} KB (${(gzipSync(body, { level: 9 }).length / 1024).toFixed(1)} KB gzipped)`;
};
console.log(
  `web/dist built in ${Math.round(performance.now() - started)} ms: ${js} ${await size(js)}, ${css} ${await size(css)}, ${workletFile} ${await size(workletFile)}`,
);
