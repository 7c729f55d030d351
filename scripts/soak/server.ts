// The compiled service as a child process on loopback, for the soak. Its own small start helper:
// scripts/bench.ts keeps its helper private and runs its benchmark when imported.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface SoakServer {
  child: ChildProcess;
  pid: number;
  url: string;
  /** The last 64 KiB the process wrote: its access log runs to megabytes over a soak. */
  tail(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

const TAIL_BYTES = 64 * 1024;

/** A port nothing listens on at the moment of asking, on loopback (the tests' child helper uses it too). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export async function startServer(root: string, script: string, env: Record<string, string>): Promise<SoakServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > TAIL_BYTES * 2) output = output.slice(-TAIL_BYTES);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 30_000;
  while (!output.includes('listening on')) {
    if (gone) throw new Error(`${script} exited before listening:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not listen within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    child,
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    tail: () => output.slice(-TAIL_BYTES),
    exited,
    async stop() {
      if (gone) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 35_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident set size in bytes, from /proc (Linux only), or undefined once the process is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) the process has used, in seconds, or undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Time the process has spent runnable but waiting for a CPU, in seconds (/proc/<pid>/schedstat, second field). */
export function cpuWaitSeconds(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return undefined;
  }
}
