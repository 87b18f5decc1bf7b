import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { CONFIG_VARIABLES } from '../../src/config/env.ts';

const repo = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(repo, file), 'utf8');

/** Variables an image or compose file sets for other programs: Node itself, os.tmpdir(), yt-dlp's cache. */
const NOT_OURS = new Set(['NODE_ENV', 'NODE_OPTIONS', 'TMPDIR', 'XDG_CACHE_HOME']);

/**
 * Issue 28: the files an operator deploys from (Dockerfile, compose.yaml) and the configuration
 * table (docs/configuration.md) name only settings the service reads, and every one it reads is documented.
 */
describe('deployment files and the configuration they set', () => {
  it('the configuration table (docs/configuration.md) documents every variable the configuration reads', () => {
    const table = read('docs/configuration.md');
    const documented = new Set(
      [...table.matchAll(/^\|([^|]*)\|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((v) => v[1])),
    );
    expect(CONFIG_VARIABLES.filter((v) => !documented.has(v))).toEqual([]);
  });

  it("the Dockerfile's ENV lines set only known variables", () => {
    const envLines = read('Dockerfile')
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((l) => l.startsWith('ENV '));
    const names = envLines.flatMap((l) => [...l.matchAll(/(?:^ENV|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!));
    expect(names.length).toBeGreaterThan(3);
    const known = new Set([
      ...CONFIG_VARIABLES,
      'ONNXRUNTIME_NODE_INSTALL',
      'npm_config_nodedir',
      'npm_config_update_notifier',
    ]);
    expect(names.filter((n) => !known.has(n) && !NOT_OURS.has(n))).toEqual([]);
  });

  it('compose.yaml runs the scale-out roles with a configuration the service accepts', () => {
    const compose = parse(read('compose.yaml'), { merge: true }) as {
      services: Record<
        string,
        { command?: string[]; environment?: Record<string, string>; healthcheck?: { test?: string[] } }
      >;
    };
    const { api, worker } = compose.services;
    expect(api?.command).toEqual(['serve', '--no-workers']);
    expect(worker?.command).toEqual(['worker']);
    for (const service of [api!, worker!]) {
      const env = service.environment;
      if (!env) throw new Error('a stemforge service of compose.yaml has no environment');
      expect(Object.keys(env).filter((k) => !CONFIG_VARIABLES.includes(k))).toEqual([]);
      // ${VAR:-default} takes its default; ${VAR:?message} a value an operator's .env would give.
      const resolved = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [
          k,
          String(v)
            .replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1')
            .replace(/\$\{[A-Z0-9_]+:\?[^}]*\}/g, 'x'.repeat(40)),
        ]),
      );
      const config = loadConfig(resolved);
      expect(config.deployment.mode).toBe('scale-out');
      expect(config.storage).toMatchObject({
        kind: 's3',
        endpoint: 'http://minio:9000',
        publicEndpoint: 'http://localhost:9000',
      });
      // Metrics stay off until the operator's .env sets a token; workers are probed on their metrics port.
      expect(config.metrics.token).toBeUndefined();
      expect(worker!.healthcheck?.test?.at(-1)).toBe(String(config.metrics.port));
    }
  });

  it("the image's health check probes /healthz on PORT, or on the port it is given (a worker's METRICS_PORT)", async () => {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.statusCode = req.url === '/healthz' ? 200 : 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const check = (args: string[], env: Record<string, string>) =>
      promisify(execFile)(process.execPath, [join(repo, 'bin', 'healthcheck.mjs'), ...args], { env }).then(
        () => 0,
        (e: { code?: number }) => e.code ?? -1,
      );
    try {
      expect(await check([String(port)], { PORT: '1' })).toBe(0);
      expect(await check([], { PORT: String(port) })).toBe(0);
      expect(paths).toEqual(['/healthz', '/healthz']);
    } finally {
      await new Promise((r) => server.close(r));
    }
    // Nothing listening: unhealthy.
    expect(await check([String(port)], {})).toBe(1);
  });
});
