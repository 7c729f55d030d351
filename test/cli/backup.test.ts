// `npm run backup` and `npm run restore` as an operator runs them, and the backup the running service
// schedules. A backup failed at each of its steps (dump, compress, encrypt, rename: the test seam
// `hooks.at` of server/backup/backup.ts, and BACKUP_TEST_HOOK, which scripts/backup.ts alone reads) or
// stopped by SIGTERM or SIGINT while in a step leaves the previous archive byte for byte and no file
// beside it; a restore on a fresh database refuses to go on without the secrets key, and with it
// gives a database the service starts over and serves.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsClient } from '../../client/index.js';
import { BACKUP_STEPS, createBackup, type BackupStep } from '../../server/backup/backup.js';
import { hasPgDump } from '../../server/backup/postgres-dump.js';
import { issueKey } from '../../server/store/api-keys.js';
import { lastVerifiedBackupAt, takeBackupLease } from '../../server/store/backup-runs.js';
import { findOrCreateBusiness, setWebhook } from '../../server/store/businesses.js';
import { knexFor, openDatabase } from '../../server/store/database.js';
import { plantDataset } from '../../scripts/bench/backup-dataset.js';
import { ROOT } from '../support/child.js';
import { conformance } from '../support/contract.js';
import { createMigratedTestDatabase, createTestDatabase, type TestDatabase } from '../support/database.js';
import { npmScript } from '../support/npm-script.js';
import { secretsEnv, secretsKeyFor } from '../support/secrets.js';
import { withServiceOver } from '../support/service.js';
import { waitFor } from '../support/wait.js';

const PASSPHRASE = 'a passphrase for the tests';
const dir = mkdtempSync(join(tmpdir(), 'payments-backup-cli-'));
const backups = join(dir, 'backups');
const archive = join(backups, 'payments.pcsbak');
const databases: TestDatabase[] = [];
let source: TestDatabase;
let apiKey: string;

beforeAll(async () => {
  mkdirSync(backups);
  source = await createMigratedTestDatabase(mkdtempSync(join(dir, 'source-')));
  databases.push(source);
  const db = openDatabase(source.url);
  try {
    const business = await findOrCreateBusiness(db, 'Kedai Backup');
    apiKey = (await issueKey(db, business.id)).key;
    await setWebhook(
      db,
      business.id,
      { url: 'https://hooks.example.com/payments', secret: 'whsec_c2VjcmV0IGtleSBvZiB0aGUgYmFja3Vw' },
      secretsKeyFor(source.url),
    );
    const sql = knexFor(source.url);
    try {
      await plantDataset(sql, business.id, { payments: 1_000, refundEvery: 5, events: 100, audit: 100 });
    } finally {
      await sql.destroy();
    }
  } finally {
    await db.close();
  }
});

afterAll(async () => {
  for (const made of databases) await made.drop();
  rmSync(dir, { recursive: true, force: true });
});

function envFor(databaseUrl: string, given: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BACKUP_') && name !== 'SECRETS_KEY'));
  return { ...env, ...secretsEnv(databaseUrl), DATABASE_URL: databaseUrl, ...given };
}

function run(args: string[], env: NodeJS.ProcessEnv) {
  const script = npmScript(args);
  const result = spawnSync(script.command, script.args, { cwd: ROOT, env, encoding: 'utf8' });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/** The archive's bytes, and that nothing else is in its folder: no work folder, no partial file. */
function expectOnlyTheArchive(bytes: Buffer): void {
  expect(readdirSync(backups)).toEqual(['payments.pcsbak']);
  expect(readFileSync(archive).equals(bytes)).toBe(true);
}

/** A backup run held at `step` (BACKUP_TEST_HOOK=pause:...), then sent `signal`: its exit code. */
async function stoppedAt(step: BackupStep, signal: NodeJS.Signals): Promise<number | null> {
  const script = npmScript(['backup', '--', '--to', archive]);
  const child = spawn(script.command, script.args, {
    cwd: ROOT,
    env: envFor(source.url, { BACKUP_PASSPHRASE: PASSPHRASE, BACKUP_TEST_HOOK: `pause:${step}` }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(`the backup paused at ${step}`, () => stderr.includes(`paused at ${step}`) || child.exitCode !== null, 60_000);
  expect(stderr).toContain(`paused at ${step}`);
  child.kill(signal);
  return exited;
}

describe('npm run backup', () => {
  it('writes an encrypted archive and verifies it; a failure at any step leaves the previous one as it was', { timeout: 120_000 }, async () => {
    const made = run(['backup', '--', '--to', archive], envFor(source.url, { BACKUP_PASSPHRASE: PASSPHRASE }));
    expect(made.out).toMatch(/written and verified/);
    expect(made.out).toContain(`dump ${source.kind === 'sqlite' ? 'sqlite-file' : hasPgDump() ? 'pg_dump' : 'pg-rows'}`);
    expect(made.code).toBe(0);
    const previous = readFileSync(archive);
    expect(previous.subarray(0, 8).toString()).toBe('PCSBAKX\n');
    expect(previous.includes(Buffer.from('payments'))).toBe(false);

    for (const step of BACKUP_STEPS) {
      const failing = createBackup({
        databaseUrl: source.url,
        to: archive,
        passphrase: PASSPHRASE,
        service: { name: 'payment-collection-service', version: 'test' },
        hooks: {
          at(now) {
            if (now === step) throw new Error(`injected at ${step}`);
          },
        },
      });
      await expect(failing, step).rejects.toThrow(`injected at ${step}`);
      expectOnlyTheArchive(previous);
    }
    const injected = run(['backup', '--', '--to', archive], envFor(source.url, { BACKUP_PASSPHRASE: PASSPHRASE, BACKUP_TEST_HOOK: 'fail:compress' }));
    expect(injected.out).toContain('injected failure at compress');
    expect(injected.code).toBe(1);
    expectOnlyTheArchive(previous);

    const verified = run(['backup', '--', '--verify', archive], envFor(source.url, { BACKUP_PASSPHRASE: PASSPHRASE }));
    expect(verified.out).toMatch(/verified in/);
    expect(verified.code).toBe(0);
    const db = openDatabase(source.url);
    try {
      expect(await lastVerifiedBackupAt(db)).toBeInstanceOf(Date);
    } finally {
      await db.close();
    }
  });

  it('stopped by SIGTERM in any step exits 143, by SIGINT 130, and leaves the previous archive and nothing else', { timeout: 120_000 }, async () => {
    const previous = readFileSync(archive);
    const stops = await Promise.all([...BACKUP_STEPS.map((step) => stoppedAt(step, 'SIGTERM')), stoppedAt('dump', 'SIGINT')]);
    expect(stops).toEqual([143, 143, 143, 143, 130]);
    expectOnlyTheArchive(previous);
  });
});

describe('npm run restore on a fresh host', () => {
  it('refuses without the secrets key, restores with it, and the service started over it serves the API', { timeout: 120_000 }, async () => {
    const target = await createTestDatabase(mkdtempSync(join(dir, 'fresh-')));
    databases.push(target);
    // A fresh host: on SQLite no key file yet, on PostgreSQL another SECRETS_KEY than the old host's.
    const otherKey: Record<string, string> = target.kind === 'postgres' ? { SECRETS_KEY: 'ab'.repeat(32) } : {};
    const withoutKey = run(['restore', '--', archive], envFor(target.url, { BACKUP_PASSPHRASE: PASSPHRASE, ...otherKey }));
    expect(withoutKey.out).toContain(`sealed with secrets key ${secretsKeyFor(source.url).id}`);
    expect(withoutKey.out).toContain('nothing was restored');
    expect(withoutKey.code).toBe(1);
    if (target.kind === 'sqlite') {
      expect(existsSync(target.url.slice('sqlite:'.length))).toBe(false);
      // Step 2 of docs/operating.md: the old host's key file beside the database.
      copyFileSync(join(dirname(source.url.slice('sqlite:'.length)), 'secrets.key'), join(dirname(target.url.slice('sqlite:'.length)), 'secrets.key'));
    }
    const restored = run(['restore', '--', archive], envFor(target.url, { BACKUP_PASSPHRASE: PASSPHRASE }));
    expect(restored.out).toMatch(/^restored \d+ rows in \d+ tables/);
    expect(restored.code).toBe(0);
    const again = run(['restore', '--', archive], envFor(target.url, { BACKUP_PASSPHRASE: PASSPHRASE }));
    expect(again.out).toContain('--force');
    expect(again.code).toBe(1);

    await withServiceOver(target.url, {}, async (service) => {
      const client = createPaymentsClient({ baseUrl: `${service.url}/api`, apiKey });
      client.use(conformance);
      const list = await client.GET('/payments', { params: { query: { per_page: 1 } } });
      expect(list.response.status).toBe(200);
      expect(list.data!.data.data).toHaveLength(1);
      expect(list.data!.data.total).toBe(1_000);
      const endpoints = await client.GET('/webhook-endpoints');
      const sent = await client.POST('/webhook-endpoints/{webhook_endpoint_id}/test', {
        params: { path: { webhook_endpoint_id: endpoints.data!.data[0]!._id } },
      });
      expect(sent.response.status).toBeLessThan(300);
    });
  });
});

describe('the scheduled backup', () => {
  it('is made, verified and recorded by the instance that takes the lease; the others leave it', { timeout: 120_000 }, async () => {
    const scheduled = join(dir, 'scheduled');
    await withServiceOver(
      source.url,
      { backup: { dir: scheduled, everyMs: 3_600_000, keep: 2, passphrase: undefined }, backupCheckEveryMs: 50 },
      async (service) => {
        const before = await lastVerifiedBackupAt(service.db);
        const at = await waitFor(
          'a scheduled backup verified',
          async () => {
            const last = await lastVerifiedBackupAt(service.db);
            return last && (!before || last > before) ? last : undefined;
          },
          60_000,
        );
        expect(at).toBeInstanceOf(Date);
        expect(readdirSync(scheduled)).toEqual([expect.stringMatching(/^backup-\d{8}T\d{6}Z\.pcsbak$/)]);
        // Another instance finds the lease taken for the interval.
        expect(await takeBackupLease(service.db, 'another instance', 3_600_000)).toBe(false);
      },
    );
  });
});
