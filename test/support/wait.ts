// How tests wait. `waitFor` polls a condition and returns as soon as it holds; `sleep` is a fixed wait,
// the one way a test waits out time (ESLint refuses a bare setTimeout as a wait under test/). Each
// sleep is metered per test process, and with TEST_SLEEP_LOG naming a folder the totals are written
// there when the process exits (or is ended with SIGTERM, as vitest ends its workers), so `npm test` can say how much of a run was spent doing nothing.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Polls until `check` returns something truthy, or fails after `timeoutMs` saying what it waited for. */
type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

const POLL_MS = 25;

export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    // A poll, not a fixed wait: it ends as soon as the condition holds, so it is not metered.
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** What one process's sleeps add up to, by the file that slept (its test file where the stack names one). */
export interface SleepTotals {
  waits: number;
  /** Every wait's length, added up. */
  ms: number;
  /** The time during which at least one wait was under way: sleeps side by side count once. */
  wallMs: number;
  files: Record<string, { waits: number; ms: number }>;
}

const totals: SleepTotals = { waits: 0, ms: 0, wallMs: 0, files: {} };
let sleeping = 0;
let sleepingSince = 0;

/** Waits `ms` of wall-clock time, and counts it. */
export async function sleep(ms: number): Promise<void> {
  const file = sleepingFile(new Error().stack);
  const started = performance.now();
  if (sleeping++ === 0) sleepingSince = started;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  const ended = performance.now();
  if (--sleeping === 0) totals.wallMs += ended - sleepingSince;
  const slept = ended - started;
  totals.waits += 1;
  totals.ms += slept;
  const each = (totals.files[file] ??= { waits: 0, ms: 0 });
  each.waits += 1;
  each.ms += slept;
}

// The test file on the stack (an async caller counts: V8 keeps those frames), else the nearest file
// that is not this one; relative to the working directory, which is the repository root under vitest.
function sleepingFile(stack: string | undefined): string {
  const files = (stack ?? '').split('\n').flatMap((line) => {
    const end = line.indexOf('.ts:');
    if (end < 0) return [];
    const head = line.slice(0, end + 3);
    return [head.slice(Math.max(head.lastIndexOf('('), head.lastIndexOf(' ')) + 1).replace(/^file:\/\//, '')];
  });
  const chosen = files.find((file) => file.endsWith('.test.ts')) ?? files.find((file) => !file.endsWith('/support/wait.ts')) ?? 'unknown';
  return chosen === 'unknown' ? chosen : relative(process.cwd(), chosen);
}

const logDir = process.env.TEST_SLEEP_LOG;
if (logDir) {
  // A module may be loaded once per test file in one process; each load writes a file of its own.
  const name = `${process.pid}-${randomBytes(4).toString('hex')}.json`;
  let written = false;
  const write = () => {
    if (written || totals.waits === 0) return;
    written = true;
    mkdirSync(logDir, { recursive: true });
    writeFileSync(join(logDir, name), JSON.stringify(totals));
  };
  process.on('exit', write);
  // Vitest ends its worker processes with SIGTERM, which skips 'exit': write, then let the signal
  // do what it would have done without a listener.
  process.once('SIGTERM', () => {
    write();
    if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
  });
}
