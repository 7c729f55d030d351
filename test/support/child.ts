// The service (or another server script) as a separate process, started the way `npm start` starts it,
// for tests that kill it or that need it apart from the test runner.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { secretsEnv } from './secrets.js';
import { waitFor } from './wait.js';

export const ROOT = join(import.meta.dirname, '..', '..');

export { freePort } from '../../scripts/soak/server.js';

export interface ChildService {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
  /** SIGTERM, as a process manager stops the service, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Starts `script` (the service unless told) and resolves once it has logged `listening on`. */
export async function startChild(env: Record<string, string>, port: number, script = 'server/main.ts'): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    // The suites' webhook receivers listen on loopback, at ports the system picks, which production refuses.
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOWED_PORTS: '1-65535',
      ...secretsEnv(env.DATABASE_URL ?? ''),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    await waitFor(
      `the service to listen (output so far: ${output})`,
      () => {
        if (gone) throw new Error(`the service exited early:\n${output}`);
        return output.includes('listening on');
      },
      30_000,
    );
  } catch (error) {
    // Nobody else holds this process yet: a child that never listened must not outlive the test.
    if (!gone) child.kill('SIGKILL');
    throw error;
  }
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    exited,
    async kill(signal) {
      if (!gone) child.kill(signal);
      return exited;
    },
    async stop(graceMs = 10_000) {
      if (!gone) child.kill('SIGTERM');
      // eslint-disable-next-line no-restricted-syntax -- a deadline for the child, cleared when it ends
      const timer = setTimeout(() => {
        if (!gone) child.kill('SIGKILL');
      }, graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
