// create-user as an operator runs it: with NEW_USER_PASSWORD the member can sign in at once; without
// it, a one-time link to the set-password page is printed, and the page makes the account.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { ROOT } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { PASSWORD, submitSetupPage } from '../support/members.js';
import { secretsEnv } from '../support/secrets.js';
import { useServiceOver } from '../support/service.js';

const SLOW = 90_000;
let dir: string;
let database: TestDatabase;
let businessId: number;

function createUser(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const { DATABASE_URL: _ignored, NEW_USER_PASSWORD: _none, ...inherited } = process.env;
    const child = spawn('npm', ['run', '--silent', 'create-user', '--', ...args], {
      cwd: ROOT,
      env: { ...inherited, ...secretsEnv(database.url), DATABASE_URL: database.url, PUBLIC_URL: service.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function login(email: string, password: string): Promise<number> {
  const response = await fetch(`${service.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return response.status;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'create-user-'));
  database = await createTestDatabase(dir);
}, SLOW);
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});
// Registered after the hooks above: started over the database they make, closed before it is dropped.
const service = useServiceOver(() => ({ databaseUrl: database.url, mail: { mailDir: join(dir, 'mail') } }), SLOW);
beforeAll(async () => {
  businessId = (await findOrCreateBusiness(service.db, 'Acme Sdn Bhd')).id;
});

it(
  'with NEW_USER_PASSWORD, makes a member who signs in at once',
  async () => {
    const run = await createUser(['--business', String(businessId), '--email', 'Finance@Example.com', '--role', 'finance'], { NEW_USER_PASSWORD: PASSWORD });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('finance');
    expect(run.stdout).not.toContain(PASSWORD);
    expect(await login('finance@example.com', PASSWORD)).toBe(200);
  },
  SLOW,
);

it(
  'refuses a weak NEW_USER_PASSWORD, an unknown role and a password on the command line',
  async () => {
    expect(
      (await createUser(['--business', String(businessId), '--email', 'weak@example.com', '--role', 'viewer'], { NEW_USER_PASSWORD: 'password1234' })).code,
    ).toBe(2);
    expect((await createUser(['--business', String(businessId), '--email', 'x@example.com', '--role', 'root'])).code).toBe(2);
    const onCommandLine = await createUser(['--business', String(businessId), '--email', 'x@example.com', '--role', 'viewer', '--password', PASSWORD]);
    expect(onCommandLine.code).toBe(2);
    expect(onCommandLine.stderr).not.toContain(PASSWORD);
  },
  SLOW,
);

it(
  'without it, prints a one-time link whose page sets the password',
  async () => {
    const run = await createUser(['--business', String(businessId), '--email', 'owner2@example.com', '--role', 'owner']);
    expect(run.code, run.stderr).toBe(0);
    const url = run.stdout.trim().split('\n').at(-1)!;
    expect(url).toMatch(new RegExp(`^${service.url}/console/setup\\?token=[A-Za-z0-9_-]{43}$`));
    const posted = await submitSetupPage(url, { name: 'Second Owner', password: PASSWORD, password_confirmation: PASSWORD });
    expect(posted.status).toBe(200);
    expect(await login('owner2@example.com', PASSWORD)).toBe(200);
  },
  SLOW,
);
