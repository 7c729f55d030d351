// A backup of a populated database (100,000 payments with refunds, webhook events and audit events),
// taken while payment links are being written, restored into a fresh database: the restored tables'
// counts and checksums equal the manifest's, and the service started over the restore answers the API
// as the contract says, secrets unsealed. (On PostgreSQL the rows are planted uncounted: counting them
// would take most of the suite's time there, and the backup copies the counters as it finds them.)
// Then what a restore refuses, each before writing anything.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsClient } from '../../client/index.js';
import { writeArchive } from '../../server/backup/archive.js';
import { createBackup, restoreBackup, verifyBackup, type Manifest } from '../../server/backup/backup.js';
import { describePostgres } from '../../server/backup/postgres-dump.js';
import { describeSqlite } from '../../server/backup/sqlite-dump.js';
import { MasterKey } from '../../server/secrets/master-key.js';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness, setWebhook } from '../../server/store/businesses.js';
import { knexFor, openDatabase } from '../../server/store/database.js';
import { plantDataset } from '../../scripts/bench/backup-dataset.js';
import { conformance } from '../support/contract.js';
import { createMigratedTestDatabase, createTestDatabase, type TestDatabase } from '../support/database.js';
import { withServiceOver } from '../support/service.js';

const PASSPHRASE = 'correct horse battery staple';
const SERVICE = { name: 'payment-collection-service', version: 'test' };
const dir = mkdtempSync(join(tmpdir(), 'payments-backup-'));
const secretsKey = new MasterKey(randomBytes(32));
const databases: TestDatabase[] = [];
let source: TestDatabase;
let sql: Knex;
let businessId: number;
let apiKey: string;
let planted: Record<string, number>;

async function database(kind: 'empty' | 'migrated'): Promise<TestDatabase> {
  const made = kind === 'empty' ? await createTestDatabase(mkdtempSync(join(dir, 'db-'))) : await createMigratedTestDatabase(mkdtempSync(join(dir, 'db-')));
  databases.push(made);
  return made;
}

const describeDatabase = (url: string) => (url.startsWith('sqlite:') ? describeSqlite(url.slice('sqlite:'.length)) : describePostgres(url));

beforeAll(async () => {
  source = await database('migrated');
  const db = openDatabase(source.url);
  try {
    const business = await findOrCreateBusiness(db, 'Backups');
    businessId = business.id;
    apiKey = (await issueKey(db, business.id)).key;
    await setWebhook(db, business.id, { url: 'https://hooks.example.com/payments', secret: `whsec_${randomBytes(24).toString('base64')}` }, secretsKey);
  } finally {
    await db.close();
  }
  sql = knexFor(source.url);
  planted = await plantDataset(sql, businessId, { payments: 100_000, refundEvery: 5, events: 10_000, audit: 10_000, counted: false });
}, 300_000);

afterAll(async () => {
  await sql?.destroy();
  for (const made of databases) await made.drop();
  rmSync(dir, { recursive: true, force: true });
});

let archive: string;
let manifest: Manifest;

describe('a backup under writes, restored on a fresh database', () => {
  it('holds one moment of the database, verifies, restores with equal counts and checksums, and serves the API', { timeout: 300_000 }, async () => {
    archive = join(dir, 'payments.pcsbak');
    const db = openDatabase(source.url);
    const linksBefore = Number((await sql('payment_links').count({ n: '*' }))[0]!.n);
    let written = 0;
    let backingUp = true;
    const writes = (async () => {
      while (backingUp) {
        const id = randomBytes(12).toString('hex');
        const now = new Date().toISOString().replace('Z', '000Z');
        await db.run(
          db.sql('payment_links').insert({
            _id: id,
            business_id: businessId,
            email: 'w@example.com',
            currency: 'MYR',
            amount: 1000,
            title: 'During',
            status: 'Active',
            paid: false,
            created_at: now,
            updated_at: now,
          }),
        );
        written += 1;
      }
    })();
    try {
      // PostgreSQL's in-process path, the one taken where pg_dump is not installed; test/cli/backup.test.ts takes pg_dump's where it is.
      manifest = await createBackup({ databaseUrl: source.url, to: archive, passphrase: PASSPHRASE, postgres: 'pg-rows', service: SERVICE });
    } finally {
      backingUp = false;
      await writes;
      await db.close();
    }
    expect(manifest.tables.payments!.rows).toBe(planted.payments);
    expect(manifest.tables.refunds!.rows).toBe(planted.refunds);
    expect(manifest.tables.audit_events!.rows).toBe(planted.audit_events);
    expect(manifest.tables.outbox!.rows).toBeGreaterThanOrEqual(planted.outbox!);
    // The links written during the backup are in it up to one moment: none half-way.
    expect(manifest.tables.payment_links!.rows).toBeGreaterThanOrEqual(linksBefore);
    expect(manifest.tables.payment_links!.rows).toBeLessThanOrEqual(linksBefore + written);
    expect(manifest.sealedWith).toEqual([secretsKey.id]);
    expect(manifest.database).toBe(source.kind);

    expect((await verifyBackup({ file: archive, passphrase: PASSPHRASE, databaseUrl: source.url })).payload).toEqual(manifest.payload);

    const target = await database('empty');
    const { migrated } = await restoreBackup({
      file: archive,
      passphrase: PASSPHRASE,
      databaseUrl: target.url,
      secretsKeyIds: [secretsKey.id],
      secretsKeySource: 'the test',
    });
    expect(migrated).toEqual([]);
    expect((await describeDatabase(target.url)).tables).toEqual(manifest.tables);

    await withServiceOver(target.url, { secrets: { key: secretsKey } }, async (service) => {
      const client = createPaymentsClient({ baseUrl: `${service.url}/api`, apiKey });
      client.use(conformance);
      const payment = await client.GET('/payments/{payment_id}', { params: { path: { payment_id: `e${'0'.repeat(22)}5` } } });
      expect(payment.response.status).toBe(200);
      expect(payment.data!.data.amount_refunded).toBeGreaterThan(0);
      const list = await client.GET('/payments', { params: { query: { per_page: 5 } } });
      expect(list.response.status).toBe(200);
      const endpoints = await client.GET('/webhook-endpoints');
      expect(endpoints.response.status).toBe(200);
      const endpointId = endpoints.data!.data[0]!._id;
      // Sending a test event opens the endpoint's sealed key.
      const sent = await client.POST('/webhook-endpoints/{webhook_endpoint_id}/test', { params: { path: { webhook_endpoint_id: endpointId } } });
      expect(sent.response.status).toBeLessThan(300);
      const created = await client.POST('/payment-links', { body: { email: 'after@example.com', currency: 'MYR', amount: 1200, title: 'After the restore' } });
      expect(created.response.status).toBe(200);
    });
  });
});

describe('what a restore refuses, before it writes anything', () => {
  const refused = async (target: TestDatabase, options: { file?: string; passphrase?: string; keys?: string[]; force?: boolean }) => {
    const error = await restoreBackup({
      file: options.file ?? archive,
      passphrase: options.passphrase ?? PASSPHRASE,
      databaseUrl: target.url,
      secretsKeyIds: options.keys ?? [secretsKey.id],
      secretsKeySource: 'SECRETS_KEY',
      force: options.force,
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error, 'the restore was refused').toBeInstanceOf(Error);
    return error!.message;
  };
  const untouched = async (target: TestDatabase) => {
    if (target.kind === 'sqlite') expect(existsSync(target.url.slice('sqlite:'.length))).toBe(false);
    else {
      const look = knexFor(target.url);
      try {
        expect((await look.raw(`select count(*)::int as n from pg_tables where schemaname = 'public'`)).rows[0].n).toBe(0);
      } finally {
        await look.destroy();
      }
    }
  };

  it('a wrong passphrase, an altered byte, a missing secrets key, a newer schema, a target holding businesses', { timeout: 120_000 }, async () => {
    const fresh = await database('empty');
    expect(await refused(fresh, { passphrase: 'not the passphrase' })).toMatch(/passphrase is wrong/);
    const altered = join(dir, 'altered.pcsbak');
    copyFileSync(archive, altered);
    const bytes = readFileSync(altered);
    const middle = bytes.length >> 1;
    bytes[middle] = bytes[middle]! ^ 0xff;
    writeFileSync(altered, bytes);
    expect(await refused(fresh, { file: altered })).toMatch(/altered/);
    const missing = await refused(fresh, { keys: [] });
    expect(missing).toContain(`sealed with secrets key ${secretsKey.id}`);
    expect(missing).toContain('SECRETS_KEY');
    expect(await refused(fresh, { keys: [new MasterKey(randomBytes(32)).id] })).toContain(secretsKey.id);

    const future = join(dir, 'future.pcsbak');
    const dumpFile = join(dir, 'future.dump');
    writeFileSync(dumpFile, 'a dump from a later version');
    await writeArchive(dumpFile, future, (payload) => ({ ...manifest, lastMigration: '9999_from_the_future', payload }));
    expect(await refused(fresh, { file: future })).toMatch(/9999_from_the_future, which this version .* does not know/);
    await untouched(fresh);

    const holding = await database('migrated');
    const db = openDatabase(holding.url);
    try {
      await findOrCreateBusiness(db, 'Already here');
    } finally {
      await db.close();
    }
    expect(await refused(holding, {})).toMatch(/holds businesses already: restore over it with --force/);
  });
});
