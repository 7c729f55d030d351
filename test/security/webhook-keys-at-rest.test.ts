// Webhook signing keys at rest: the database holds them sealed (AES-256-GCM under the configured
// master key), never in clear, not even in the bytes of the SQLite file; deliveries open them; a key
// that does not open (another SECRETS_KEY, another row's value) fails the delivery with a reason
// instead of signing with garbage; keys stored in clear by earlier versions are sealed at start. The
// responses kept under an Idempotency-Key, which carry a new key in clear, are sealed too.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/webhooks.js';
import { MasterKey } from '../../server/secrets/master-key.js';
import { SecretUnreadableError } from '../../server/secrets/seal.js';
import { findOrCreateBusiness, findWebhook, setWebhook } from '../../server/store/businesses.js';
import { knexFor, openDatabase } from '../../server/store/database.js';
import { migrateUpTo } from '../../server/store/migrate.js';
import { listAttempts, listOutbox } from '../../server/store/outbox.js';
import { createTestDatabase } from '../support/database.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { offlineResolver, useServicePerTest, withServiceOver, type Tenant, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const FAST_RETRY = { baseMs: 40, capMs: 200, maxAttempts: 50 };

/** The forms in which the key could sit in a row or a file. */
function encodings(secret: string): string[] {
  const base64 = secret.slice('whsec_'.length);
  return [secret, base64, Buffer.from(base64, 'base64').toString('hex'), Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex')];
}

/** Every file of an SQLite database (main file, write-ahead log, shared memory), by name. */
function sqliteFiles(databaseUrl: string): Map<string, Buffer> {
  const file = databaseUrl.slice('sqlite:'.length);
  const dir = dirname(file);
  const prefix = file.slice(dir.length + 1);
  return new Map(
    readdirSync(dir)
      .filter((name) => name.startsWith(prefix))
      .map((name) => [name, readFileSync(join(dir, name))]),
  );
}

function expectNotInFiles(databaseUrl: string, secret: string): void {
  const files = sqliteFiles(databaseUrl);
  expect([...files.keys()]).toContain(databaseUrl.slice('sqlite:'.length).split('/').pop());
  for (const [name, bytes] of files) {
    for (const text of encodings(secret)) expect(bytes.includes(Buffer.from(text)), `${name} holds ${text}`).toBe(false);
    expect(bytes.includes(Buffer.from(secret.slice('whsec_'.length), 'base64')), `${name} holds the key's raw bytes`).toBe(false);
  }
}

/** Every row of every table of the service's database, as text. */
async function everyStoredRow(t: TestService): Promise<string> {
  const tables =
    t.service.db.dialect === 'sqlite'
      ? ((await t.sql.raw("select name from sqlite_master where type = 'table'")) as { name: string }[]).map((row) => row.name)
      : ((await t.sql.raw('select tablename as name from pg_tables where schemaname = current_schema()')) as { rows: { name: string }[] }).rows.map(
          (row) => row.name,
        );
  expect(tables).toContain('idempotency_keys');
  const dumps: string[] = [];
  for (const table of tables) dumps.push(JSON.stringify(await t.sql(table).select('*')));
  return dumps.join('\n');
}

async function pay(t: TestService, tenant: Tenant): Promise<void> {
  await create.paidLink(t, tenant, { amount: 1050, title: 'Invoice 9' }, { name: 'Ali' });
}

let t: TestService | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  t = receiver = undefined;
});
// Registered after the hook above, so each test's service closes before what it delivered to.
const serviceForTest = useServicePerTest();

describe('a webhook key at rest', () => {
  it('is stored sealed: the row and the SQLite file never hold it, and deliveries are signed with it', async () => {
    receiver = await startReceiver();
    t = await serviceForTest();
    await setWebhook(t.service.db, t.a.business.id, { url: receiver.url, secret: SECRET }, t.service.secretsKey);

    const row = await t.sql('webhook_endpoints').where({ business_id: t.a.business.id }).first();
    for (const text of encodings(SECRET)) expect(JSON.stringify(row)).not.toContain(text);
    expect(row.secret).toMatch(new RegExp(`^v1:${t.service.secretsKey.id}:[\\w-]{16}:[\\w-]+:[\\w-]{22}$`));
    if (t.service.db.dialect === 'sqlite') expectNotInFiles(`sqlite:${join(t.dir, 'test.sqlite')}`, SECRET);

    await pay(t, t.a);
    const [request] = await waitFor('the webhook', () => receiver!.requests.length && receiver!.requests);
    expect(verifyWebhook(request!.raw, request!.headers as Record<string, string>, SECRET)).toMatchObject({ event: 'payment.created' });
  });

  it('sealed with another key (SECRETS_KEY changed) fails each delivery with a reason and sends nothing, until the key is back', async () => {
    receiver = await startReceiver();
    t = await serviceForTest({ outbox: { retry: FAST_RETRY } });
    const other = new MasterKey(randomBytes(32));
    await setWebhook(t.service.db, t.a.business.id, { url: receiver.url, secret: SECRET }, other);

    await pay(t, t.a);
    const [entry] = await waitFor('two failed attempts', async () => {
      const entries = await listOutbox(t!.service.db, { channel: 'webhook' });
      return entries[0] && entries[0].attempts >= 2 && entries;
    });
    expect(entry).toMatchObject({ status: 'pending' });
    const attempts = await listAttempts(t.service.db, entry!.id);
    expect(attempts[0]).toMatchObject({ outcome: 'failed' });
    expect(attempts[0]!.error).toBe(
      `webhook not delivered: the webhook key cannot be decrypted with the configured key: it was sealed with key ${other.id}, but the configured key is ${t.service.secretsKey.id} (SECRETS_KEY or the key file is not the one it was sealed with)`,
    );
    expect(receiver.requests).toHaveLength(0);

    // The operator puts the right key back (here: the key sealed again under the configured one): the retry goes out.
    await setWebhook(t.service.db, t.a.business.id, { url: receiver.url, secret: SECRET }, t.service.secretsKey);
    const [request] = await waitFor('the webhook', () => receiver!.requests.length && receiver!.requests);
    expect(verifyWebhook(request!.raw, request!.headers as Record<string, string>, SECRET)).toMatchObject({ event: 'payment.created' });
  });

  it("copied into another business's endpoint does not open there", async () => {
    t = await serviceForTest();
    await setWebhook(t.service.db, t.a.business.id, { url: 'https://a.example.com/hooks', secret: SECRET }, t.service.secretsKey);
    await setWebhook(
      t.service.db,
      t.b.business.id,
      { url: 'https://b.example.com/hooks', secret: 'whsec_b_business_own_key_0123456789' },
      t.service.secretsKey,
    );
    const { secret } = await t.sql('webhook_endpoints').where({ business_id: t.a.business.id }).first();
    await t.sql('webhook_endpoints').where({ business_id: t.b.business.id }).update({ secret });
    await expect(findWebhook(t.service.db, t.b.business.id, t.service.secretsKey)).rejects.toThrow(SecretUnreadableError);
    await expect(findWebhook(t.service.db, t.b.business.id, t.service.secretsKey)).rejects.toThrow(
      /does not authenticate under the configured key .*sealed for another record/,
    );
    expect(await findWebhook(t.service.db, t.a.business.id, t.service.secretsKey)).toEqual({ url: 'https://a.example.com/hooks', secret: SECRET });
  });
});

describe('a webhook key in a response kept under an Idempotency-Key', () => {
  it('is sealed: no row and no byte of the SQLite file holds it, and a retry gets it back', async () => {
    t = await serviceForTest({
      resolve: async (hostname) => (hostname === 'hooks.example.test' ? [{ address: '93.184.215.14', family: 4 }] : offlineResolver(hostname)),
    });
    const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key } });
    const body = { url: 'https://hooks.example.test/payments' };
    const created = await t.a.client.POST('/webhook-endpoints', { body, ...keyed('create-endpoint') });
    expect(created.response.status).toBe(200);
    const endpoint = created.data!.data;
    const rotate = { params: { path: { webhook_endpoint_id: endpoint._id } }, ...keyed('rotate-endpoint') };
    const rotated = await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/rotate-secret', rotate);
    expect(rotated.response.status).toBe(200);
    const secrets = [endpoint.secret, rotated.data!.data.secret];
    expect(secrets.every((secret) => /^whsec_/.test(secret))).toBe(true);
    expect(secrets[0]).not.toBe(secrets[1]);

    const kept = await t.sql('idempotency_keys').where({ business_id: t.a.business.id }).select('idempotency_key', 'response_body');
    expect(kept.map((row) => row.idempotency_key).sort()).toEqual(['create-endpoint', 'rotate-endpoint']);
    for (const row of kept) expect(row.response_body).toMatch(new RegExp(`^v1:${t.service.secretsKey.id}:`));
    const stored = await everyStoredRow(t);
    for (const secret of secrets) for (const text of encodings(secret)) expect(stored, `a row holds ${text}`).not.toContain(text);
    if (t.service.db.dialect === 'sqlite') for (const secret of secrets) expectNotInFiles(t.databaseUrl, secret);

    const createdAgain = await t.a.client.POST('/webhook-endpoints', { body, ...keyed('create-endpoint') });
    const rotatedAgain = await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/rotate-secret', rotate);
    for (const [replay, first] of [
      [createdAgain, created],
      [rotatedAgain, rotated],
    ] as const) {
      expect(replay.response.status).toBe(200);
      expect(replay.response.headers.get('Idempotent-Replayed')).toBe('true');
      expect(replay.data).toEqual(first.data);
    }
    expect([createdAgain.data!.data.secret, rotatedAgain.data!.data.secret]).toEqual(secrets);
    expect((await t.a.client.GET('/webhook-endpoints')).data!.data).toHaveLength(1);
  });
});

describe('webhook keys stored in clear by an earlier version', () => {
  it('are sealed when the service starts, keep working, and leave no clear copy in the SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payments-legacy-keys-'));
    const database = await createTestDatabase(dir);
    // Rows sharing a page with room to spare: SQLite writes a grown row elsewhere in the page and
    // leaves the old bytes where they were, unless told to wipe freed space.
    const legacy = Array.from({ length: 3 }, (_, i) => ({ name: `Old Business ${i}`, secret: `whsec_${randomBytes(32).toString('base64')}` }));
    try {
      // What a version before sealing left behind: keys in clear in the businesses' own columns
      // (before webhook endpoints, `migrations/0016_webhook_endpoints.ts`), checkpointed into the file.
      const store = openDatabase(database.url);
      const db = knexFor(database.url);
      try {
        await migrateUpTo(db, '0015_event_log');
        for (const { name, secret } of legacy) {
          const { id } = await findOrCreateBusiness(store, name);
          await db('businesses').where({ id }).update({ webhook_url: 'https://old.example.com/hooks', webhook_secret: secret });
        }
        await findOrCreateBusiness(store, 'No Webhook');
        if (database.kind === 'sqlite') {
          await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
          // The check below can see a key in the file: here it does.
          const bytes = readFileSync(database.url.slice('sqlite:'.length));
          expect(legacy.every(({ secret }) => bytes.includes(Buffer.from(secret)))).toBe(true);
        }
      } finally {
        await db.destroy();
        await store.close();
      }

      await withServiceOver(database.url, { mail: { mailDir: join(dir, 'mail') } }, async (service) => {
        // Each business's key moved into its first endpoint, sealed there; the old columns hold nothing.
        const rows = await service.db.all<{ id: number; name: string; webhook_url: string | null; webhook_secret: string | null; secret: string | null }>(
          service.db
            .sql('businesses as b')
            .leftJoin('webhook_endpoints as e', 'e.business_id', 'b.id')
            .select('b.id', 'b.name', 'b.webhook_url', 'b.webhook_secret', 'e.secret')
            .orderBy('b.id'),
        );
        expect(rows.map((row) => row.name)).toEqual([...legacy.map(({ name }) => name), 'No Webhook']);
        expect(rows.at(-1)!.secret).toBeNull();
        expect(rows.every((row) => row.webhook_url === null && row.webhook_secret === null)).toBe(true);
        for (const [i, { secret }] of legacy.entries()) {
          expect(JSON.stringify(rows)).not.toContain(secret.slice('whsec_'.length));
          expect(rows[i]!.secret).toMatch(new RegExp(`^v1:${service.secretsKey.id}:`));
          expect(await findWebhook(service.db, rows[i]!.id, service.secretsKey)).toEqual({ url: 'https://old.example.com/hooks', secret });
        }
        if (database.kind === 'sqlite') for (const { secret } of legacy) expectNotInFiles(database.url, secret);
      });
    } finally {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
