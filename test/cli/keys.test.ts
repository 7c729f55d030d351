// The key tool as an operator runs it: `npm run --silent create-key -- --business "..."` against the
// database DATABASE_URL names, then the service started on that database accepts the key.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CALLER_CACHE_MS } from '../../server/store/api-key-cache.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';
import { createPaymentsClient } from '../../client/index.js';
import { startService, type RunningService } from '../../server/start.js';
import { secretsEnv, secretsSettings } from '../support/secrets.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KEY = /^sk_[A-Za-z0-9_-]{43}$/;
const SLOW = 60_000;
const BUSINESS = 'Acme Sdn Bhd';

let dir: string;
let databaseUrl: string;
let database: TestDatabase | undefined;
let service: RunningService | undefined;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function npm(args: string[], timeoutMs = SLOW - 5_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DATABASE_URL: _ignored, ...env } = process.env;
    const child = spawn('npm', ['run', '--silent', ...args], {
      cwd: ROOT,
      env: { ...env, ...secretsEnv(databaseUrl), DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // eslint-disable-next-line no-restricted-syntax -- a deadline for the child, cleared when it ends
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npm ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '');
const lastLine = (text: string) => lines(text).at(-1) ?? '';

const clientFor = (apiKey: string) => createPaymentsClient({ baseUrl: `${service!.url}/api`, apiKey });

let first: Run;
let second: Run;
let key1 = '';
let key2 = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payments-keys-'));
  database = await createTestDatabase(dir);
  databaseUrl = database.url;
}, SLOW);

afterAll(async () => {
  await service?.close();
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, SLOW);

describe('create-key', () => {
  it(
    'exits 0 and prints the key alone on the last line of stdout',
    async () => {
      first = await npm(['create-key', '--', '--business', BUSINESS]);
      expect(first.stderr.replace(/^npm warn .*$/gm, ''), 'stderr').not.toMatch(/error/i);
      expect(first.code).toBe(0);
      key1 = lastLine(first.stdout);
      expect(key1).toMatch(KEY);
      // The last line is the key and nothing else (no prefix, no trailing text).
      expect(first.stdout.trimEnd().split('\n').at(-1)).toBe(key1);
    },
    SLOW,
  );

  it(
    'run again for the same business: a different key',
    async () => {
      second = await npm(['create-key', '--', '--business', BUSINESS]);
      expect(second.code).toBe(0);
      key2 = lastLine(second.stdout);
      expect(key2).toMatch(KEY);
      expect(key2).not.toBe(key1);
    },
    SLOW,
  );

  it(
    'both keys authenticate against the service started on that database, as the same business',
    async () => {
      // Started after the CLI has run, on the same file.
      service = await startService({ databaseUrl, port: 0, host: '127.0.0.1', secrets: secretsSettings(databaseUrl) });
      const businesses = await service.db.all<{ id: number; name: string }>(service.db.sql('businesses').select('id', 'name'));
      expect(businesses).toEqual([{ id: expect.any(Number), name: BUSINESS }]);
      const businessId = businesses[0]!.id;

      const keys = await service.db.all<{ business_id: number }>(service.db.sql('api_keys').select('business_id'));
      expect(keys).toHaveLength(2);
      expect(keys.map((row) => row.business_id)).toEqual([businessId, businessId]);

      for (const key of [key1, key2]) {
        const created = await clientFor(key).POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' } });
        expect(created.response.status).toBe(200);
        expect(created.data?.data.business_id).toBe(businessId);
      }
      // Both keys see the same business's records.
      const list1 = await clientFor(key1).GET('/payment-links');
      const list2 = await clientFor(key2).GET('/payment-links');
      expect(list1.data?.data.total).toBe(2);
      expect(list2.data?.data.data).toEqual(list1.data?.data.data);

      // A key the tool did not issue does not.
      const stranger = await clientFor(`sk_${'B'.repeat(43)}`).GET('/payment-links');
      expect(stranger.response.status).toBe(401);
    },
    SLOW,
  );

  it('keys are stored hashed: no column of api_keys holds the key or its secret part', async () => {
    const rows = await service!.db.all<{ key_hash: string }>(service!.db.sql('api_keys').select());
    expect(rows).toHaveLength(2);
    const stored = JSON.stringify(rows);
    for (const key of [key1, key2]) {
      expect(stored).not.toContain(key);
      // The part after the displayed prefix (the first 10 characters) is the secret.
      expect(stored).not.toContain(key.slice(10));
      expect(stored).not.toContain(key.slice(3));
      // Nor any encoding of it that could be reversed trivially.
      expect(stored).not.toContain(Buffer.from(key).toString('base64'));
      expect(stored).not.toContain(Buffer.from(key).toString('hex'));
    }
    // What is stored is the SHA-256 of the key (openapi.yaml: "Keys are stored only as SHA-256 hashes").
    const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
    expect(rows.map((row) => row.key_hash).sort()).toEqual([sha256(key1), sha256(key2)].sort());
    // Nothing else in the database holds the key either.
    const everything = JSON.stringify(
      await Promise.all(['businesses', 'api_keys', 'payment_links'].map((table) => service!.db.all(service!.db.sql(table).select()))),
    );
    for (const key of [key1, key2]) expect(everything).not.toContain(key.slice(10));
  });

  it('the key is printed on stdout only once and not in stderr', () => {
    for (const run of [first, second]) {
      const key = lastLine(run.stdout);
      expect(run.stdout.split(key).length - 1).toBe(1);
      expect(run.stderr).not.toContain(key);
      expect(run.stderr).not.toContain(key.slice(10));
    }
  });
});

describe('revoke-key', () => {
  it(
    '--prefix <first 10 characters> makes that key 401 and leaves the other working',
    async () => {
      const before = await clientFor(key1).GET('/payment-links');
      expect(before.response.status).toBe(200);

      const revoked = await npm(['revoke-key', '--', '--prefix', key1.slice(0, 10)]);
      expect(revoked.code).toBe(0);

      // The service reuses a key lookup for DEFAULT_CALLER_CACHE_MS: revocation takes effect within that.
      const revokedAt = Date.now();
      const after = await waitFor(
        'the revoked key to be refused',
        async () => {
          const answer = await clientFor(key1).GET('/payment-links');
          return answer.response.status === 401 && answer;
        },
        DEFAULT_CALLER_CACHE_MS + 2_000,
      );
      expect(Date.now() - revokedAt).toBeLessThanOrEqual(DEFAULT_CALLER_CACHE_MS + 1_000);
      expect(after.error).toEqual({ message: 'Unauthenticated.' });
      const create = await clientFor(key1).POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' } });
      expect(create.response.status).toBe(401);

      const other = await clientFor(key2).GET('/payment-links');
      expect(other.response.status).toBe(200);
    },
    SLOW,
  );
});

describe('a business renamed in the console', () => {
  it(
    'is found by its business_id, whatever its name; its old name makes another business, and create-key says so',
    async () => {
      const renamed = await clientFor(key2).PATCH('/business', { body: { name: 'Acme Trading Sdn Bhd' } });
      expect(renamed.response.status).toBe(200);
      const businessId = renamed.data!.data.id;

      const byId = await npm(['create-key', '--', '--business', String(businessId)]);
      expect(byId.code).toBe(0);
      expect(byId.stderr).toContain(`issued for "Acme Trading Sdn Bhd" (business_id ${businessId})`);
      expect(byId.stderr).not.toContain('created');
      const keys = await service!.db.all<{ business_id: number }>(service!.db.sql('api_keys').select('business_id'));
      expect(keys.map((row) => Number(row.business_id))).toEqual([businessId, businessId, businessId]);

      const byOldName = await npm(['create-key', '--', '--business', BUSINESS]);
      expect(byOldName.code).toBe(0);
      expect(byOldName.stderr).toMatch(new RegExp(`No business was named "${BUSINESS}": created it \\(business_id (?!${businessId}\\))\\d+\\)`));
      const names = await service!.db.all<{ name: string }>(service!.db.sql('businesses').select('name').orderBy('id'));
      expect(names.map((row) => row.name)).toEqual(['Acme Trading Sdn Bhd', BUSINESS]);
    },
    SLOW,
  );
});

describe('usage errors', () => {
  it(
    'create-key without --business exits 2 with a message on stderr and creates nothing',
    async () => {
      const countsBefore = await Promise.all(
        ['businesses', 'api_keys'].map(async (table) => (await service!.db.first<{ n: number }>(service!.db.sql(table).count({ n: '*' })))!.n),
      );
      const run = await npm(['create-key']);
      expect(run.code).toBe(2);
      expect(run.stderr.replace(/^npm warn .*$/gm, '').trim()).not.toBe('');
      expect(run.stderr).toMatch(/business/i);
      expect(run.stdout).not.toMatch(/sk_[A-Za-z0-9_-]{43}/);
      const countsAfter = await Promise.all(
        ['businesses', 'api_keys'].map(async (table) => (await service!.db.first<{ n: number }>(service!.db.sql(table).count({ n: '*' })))!.n),
      );
      expect(countsAfter).toEqual(countsBefore);
    },
    SLOW,
  );

  it(
    'create-key with an empty --business exits 2 as well',
    async () => {
      const run = await npm(['create-key', '--', '--business', '   ']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/business/i);
      expect(run.stdout).not.toMatch(/sk_[A-Za-z0-9_-]{43}/);
    },
    SLOW,
  );
});
