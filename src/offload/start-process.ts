import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bootstrap = fileURLToPath(new URL('./ts-bootstrap.mjs', import.meta.url));

/**
 * Starts a module in a Node child process with an IPC channel ('advanced' serialization, so typed
 * arrays cross as they are). TypeScript sources start through the tsx bootstrap; compiled
 * JavaScript starts as is. The child shares stdout/stderr and gets `env` as its whole environment;
 * it does not inherit the parent's Node flags (an inspector port, say).
 */
export function startProcess(moduleUrl: URL, env: NodeJS.ProcessEnv): ChildProcess {
  const path = fileURLToPath(moduleUrl);
  const ts = path.endsWith('.ts');
  return fork(ts ? bootstrap : path, ts ? [moduleUrl.href] : [], {
    env,
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
