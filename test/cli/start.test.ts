// `npm start` as a newcomer runs it: on an empty database it creates a demo business, prints its key
// and a curl line that works as printed; it says in plain lines where the console is and, on SQLite,
// what the secrets key file it created is for; it serves its reference at /docs and its contract at
// /openapi.yaml; a second start on the same database creates nothing and prints no key.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createPaymentsClient } from '../../client/index.js';
import { openDatabase } from '../../server/store/database.js';
import { secretsEnv } from '../support/secrets.js';
import { setupPageUrl, submitSetupPage } from '../support/members.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SLOW = 60_000;
const KEY_LINE = /^[ \t]*(sk_[A-Za-z0-9_-]{43})[ \t]*$/m;
const ANY_KEY = /sk_[A-Za-z0-9_-]{43}/;
const CURL_LINE = /^[ \t]*(curl .+)$/m;

let dir: string;
let databaseUrl: string;
let database: TestDatabase | undefined;

/** Whether anything accepts connections on the port (the server is still up). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

class Started {
  stdout = '';
  stderr = '';
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exited = false;

  constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.stdout!.on('data', (chunk) => (this.stdout += chunk));
    child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exited = true;
        resolve({ code, signal });
      }),
    );
  }

  get origin(): string {
    return `http://localhost:${this.port}`;
  }

  /** Resolves once stdout (or stderr) matches, fails on exit or after the timeout. */
  async waitFor(pattern: RegExp, timeoutMs = 45_000, stream: 'stdout' | 'stderr' = 'stdout'): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = this[stream].match(pattern);
      if (match) return match;
      if (this.exited) break;
      // eslint-disable-next-line no-restricted-syntax -- a poll of the output, not a fixed wait: it ends once the line is there
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no ${pattern} in the ${stream} of npm start (exited: ${this.exited})\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
  }

  /**
   * SIGTERM to the whole process group (npm -> sh -> tsx -> node: npm alone does not pass the signal
   * on), then waits for npm to exit and the port to close; SIGKILL if it does not within 15 s.
   */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const pid = this.child.pid!;
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-pid, name);
      } catch {
        // the group is gone already
      }
    };
    if (!this.exited) signal('SIGTERM');
    // eslint-disable-next-line no-restricted-syntax -- a deadline raced against the exit, not a wait
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000));
    const result = await Promise.race([this.exit, timeout]);
    if (result === 'timeout') {
      signal('SIGKILL');
      await this.exit;
      throw new Error(`npm start did not exit within 15 s of SIGTERM\nstdout:\n${this.stdout}`);
    }
    // The server itself (a grandchild of npm) must be gone too, not only npm.
    const deadline = Date.now() + 10_000;
    // eslint-disable-next-line no-restricted-syntax -- a poll of the port, not a fixed wait: it ends once the port is closed
    while ((await listening(this.port)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    if (await listening(this.port)) {
      signal('SIGKILL');
      throw new Error(`port ${this.port} still open after npm start exited`);
    }
    return result;
  }
}

async function npmStart(): Promise<Started> {
  const port = await freePort();
  const { DATABASE_URL: _d, PUBLIC_URL: _p, HOST: _h, PORT: _port, ...env } = process.env;
  // detached: its own process group, so stop() can signal npm and everything it started.
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...env, ...secretsEnv(databaseUrl), PORT: String(port), DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new Started(child, port);
}

/** The plain line that says where the console is, for the person at the terminal. */
const consoleLine = (started: Started) => new RegExp(`^Console: +${started.origin}/console$`, 'm');
const KEY_FILE_LINE = /^Created the secrets key file (\S+)\. (.+)$/m;

function bash(command: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function storedCounts() {
  const db = openDatabase(databaseUrl);
  try {
    const count = async (table: string) => Number((await db.first<{ n: number }>(db.sql(table).count({ n: '*' })))!.n);
    return { businesses: await count('businesses'), api_keys: await count('api_keys'), payment_links: await count('payment_links') };
  } finally {
    await db.close();
  }
}

const running: Started[] = [];
/** The demo business's key printed by the first start. */
let key = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payments-start-'));
  database = await createTestDatabase(dir);
  databaseUrl = database.url;
});

afterAll(async () => {
  for (const started of running) await started.stop().catch(() => undefined);
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, SLOW);

describe('npm start on an empty database', () => {
  let started: Started;
  let curl = '';

  beforeAll(async () => {
    started = await npmStart();
    running.push(started);
    await started.waitFor(/listening/);
    // The key and the curl line follow the listening line.
    await started.waitFor(CURL_LINE);
  }, SLOW);

  afterAll(() => started.stop(), SLOW);

  it('says where it listens: the chosen port', () => {
    const line = started.stdout.split('\n').find((l) => /listening/.test(l))!;
    expect(line).toContain(`:${started.port}`);
  });

  it(
    'says in a plain line, not only in the JSON log, where the console is, and the console answers there',
    async () => {
      await started.waitFor(consoleLine(started), 10_000, 'stderr');
      expect(started.stderr).toMatch(new RegExp(`^API: +${started.origin}/api$`, 'm'));
      expect(started.stderr).toMatch(new RegExp(`^Reference: +${started.origin}/docs$`, 'm'));
      expect((await fetch(`${started.origin}/console`)).status).toBeLessThan(400);
    },
    SLOW,
  );

  it(
    'on SQLite, says it created the secrets key file, what it holds and that it is backed up with the database',
    async () => {
      await started.waitFor(consoleLine(started), 10_000, 'stderr');
      if (database!.kind === 'postgres') {
        // SECRETS_KEY is required there: no file is created, and nothing says so.
        expect(started.stderr).not.toMatch(KEY_FILE_LINE);
        return;
      }
      const [, file, explanation] = started.stderr.match(KEY_FILE_LINE)!;
      expect(file).toBe(join(dir, 'secrets.key'));
      expect(readFileSync(file!, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
      expect(explanation).toMatch(/master key that seals the secrets/);
      expect(explanation).toMatch(/Back it up with the database/);
      expect(explanation).toMatch(/SECRETS_KEY/);
    },
    SLOW,
  );

  it('prints the demo business API key on a line of its own', () => {
    const match = started.stdout.match(KEY_LINE);
    expect(match).not.toBeNull();
    key = match![1]!;
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
  });

  it(
    'prints a one-time link whose page makes the demo business owner, who then signs in',
    async () => {
      const url = started.stdout.match(/become the owner of "Demo Business":\s+(\S+)/)![1]!;
      expect(url).toMatch(new RegExp(`^${started.origin}/console/setup\\?token=[A-Za-z0-9_-]{43}$`));
      const password = 'plum-orbit-kettle-42';
      const posted = await submitSetupPage(url, { email: 'owner@example.com', name: 'Owner', password, password_confirmation: password });
      expect(posted.status).toBe(200);
      expect((await fetch(setupPageUrl(url))).status).toBe(410);
      const login = await fetch(`${started.origin}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'owner@example.com', password }),
      });
      expect(login.status).toBe(200);
      expect(((await login.json()) as { data: { role: string } }).data.role).toBe('owner');
    },
    SLOW,
  );

  it('prints a curl line that uses that key against this server', () => {
    curl = started.stdout.match(CURL_LINE)![1]!.trim();
    expect(curl).toContain(`Bearer ${key}`);
    expect(curl).toContain(`${started.origin}/api/`);
  });

  it(
    'the curl line, run exactly as printed, answers 200 with a success envelope',
    async () => {
      // curl reads $CURL_HOME/.curlrc: a write-out of the status after the body, without touching the line.
      const curlHome = mkdtempSync(join(dir, 'curl-'));
      writeFileSync(join(curlHome, '.curlrc'), 'write-out = "\\n%{http_code}"\n');
      const result = await bash(curl, { CURL_HOME: curlHome, XDG_CONFIG_HOME: curlHome });
      expect(result.code, result.stderr).toBe(0);
      const newline = result.stdout.lastIndexOf('\n');
      const status = result.stdout.slice(newline + 1).trim();
      const body = JSON.parse(result.stdout.slice(0, newline)) as {
        success: boolean;
        data: Record<string, unknown>;
        errors: unknown;
        meta: Record<string, unknown>;
      };
      expect(status).toBe('200');
      expect(body).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
      expect(body.data).toMatchObject({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'Active', paid: false });

      // What it created is there for the same key.
      const client = createPaymentsClient({ baseUrl: `${started.origin}/api`, apiKey: key });
      const read = await client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: body.data._id as string } } });
      expect(read.response.status).toBe(200);
      expect(read.data?.data).toEqual(body.data);
    },
    SLOW,
  );

  it('GET /docs is the HTML reference', async () => {
    const response = await fetch(`${started.origin}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('Payment Collection Service API');
    expect(html).toMatch(/<html/i);
  });

  it('GET /openapi.yaml is the contract, byte for byte', async () => {
    const response = await fetch(`${started.origin}/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/yaml/);
    expect(await response.text()).toBe(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'));
  });

  it('created exactly one business with one key', async () => {
    expect(await storedCounts()).toMatchObject({ businesses: 1, api_keys: 1 });
  });
});

describe('a second npm start on the same database', () => {
  it(
    'creates no business, prints no key and no curl line, and the first key still works',
    async () => {
      expect(key).toMatch(/^sk_/);
      const before = await storedCounts();
      expect(before.businesses).toBe(1);
      const started = await npmStart();
      running.push(started);
      try {
        await started.waitFor(/listening/);
        // It says where the console is at every start, but the key file only when it made it.
        await started.waitFor(consoleLine(started), 10_000, 'stderr');
        expect(started.stderr).not.toMatch(KEY_FILE_LINE);
        // No waiting for a key that might come: main.ts prints the key and the curl line on stdout before
        // the 'listening' line, which is there already.
        const docs = await fetch(`${started.origin}/docs`);
        expect(docs.status).toBe(200);
        const client = createPaymentsClient({ baseUrl: `${started.origin}/api`, apiKey: key });
        const list = await client.GET('/payment-links');
        expect(list.response.status).toBe(200);
        // The link the curl line created, under the same business.
        expect(list.data?.data.total).toBe(1);
      } finally {
        await started.stop();
      }
      expect(started.stdout).not.toMatch(ANY_KEY);
      expect(started.stderr).not.toMatch(ANY_KEY);
      expect(started.stdout).not.toMatch(/^[ \t]*curl /m);
      expect(await storedCounts()).toEqual(before);
    },
    SLOW,
  );
});
