import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');

/** Podman as the container test drives it: runc, cgroupfs, no default ulimits, host networking. */
const env = { ...process.env, CONTAINERS_CONF: join(import.meta.dirname, 'containers.conf') };

export const IMAGE = 'localhost/stemforge:test';

/** Whether this machine can run the container test at all. */
export function podmanMissing(): string | undefined {
  for (const tool of ['/usr/bin/podman', '/usr/sbin/runc', '/usr/sbin/debootstrap']) {
    if (!existsSync(tool)) return `${tool} is not installed (apt-get install podman runc debootstrap)`;
  }
  return undefined;
}

export async function podman(args: string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await exec('podman', ['--runtime', '/usr/sbin/runc', ...args], {
    env,
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  });
  return stdout.trim();
}

/**
 * Builds the repository's Dockerfile unchanged on the local stand-in of its base image
 * (base-image.sh), the way an operator behind this machine's TLS-inspecting proxy would: the
 * machine's CA bundle is mounted for the build only. Layers are cached between runs.
 */
export async function buildImage(): Promise<void> {
  await exec('bash', [join(import.meta.dirname, 'base-image.sh')], { env, timeout: 900_000, maxBuffer: 64 << 20 });
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  const ca = existsSync(bundle)
    ? ['--volume', `${bundle}:/run/build-ca.crt:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/build-ca.crt']
    : [];
  await podman(
    ['build', '--pull=never', '--network', 'host', '--format', 'docker', ...ca, '-t', IMAGE, repo],
    1_200_000,
  );
  // Earlier builds' layers, no longer tagged: without this every CI run adds an image's worth of disk.
  await podman(['image', 'prune', '-f']);
}

/** Starts a container of the image in the background; returns its id. */
export async function runContainer(args: string[]): Promise<string> {
  return podman(['run', '-d', '--network', 'host', ...args]);
}

/** A container's output so far, stdout and stderr together. */
export async function logsOf(id: string): Promise<string> {
  const { stdout, stderr } = await exec('podman', ['--runtime', '/usr/sbin/runc', 'logs', id], {
    env,
    maxBuffer: 64 << 20,
  });
  return stdout + stderr;
}

/** Waits until the container's output matches, failing with the output when it exits or times out. */
export async function waitForLog(id: string, pattern: RegExp, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = await logsOf(id);
    if (pattern.test(out)) return out;
    const running = await podman(['inspect', '--format', '{{.State.Running}}', id]);
    if (running !== 'true' || Date.now() > deadline) {
      throw new Error(`container ${id.slice(0, 12)} ${running === 'true' ? 'timed out' : 'exited'}:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function removeContainers(ids: string[]): Promise<void> {
  if (ids.length > 0) await podman(['rm', '-f', '-t', '5', ...ids]).catch(() => undefined);
}
