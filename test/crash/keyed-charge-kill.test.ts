// A keyed charge whose process is killed while the acquirer is being asked: the pending payment was
// committed before the call, with the key's provisional answer, so after a restart a retry with the
// key replays 202 pending instead of charging again, and the pending sweep settles that one payment.
// Always SQLite, on both suite runs: the kill and restart are the embedded database's.
import { settlementTerms } from '../../server/usecases/settlement/terms.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { openDatabase } from '../../server/store/database.js';
import { settleStalePending } from '../../server/usecases/settlement/pending-sweep.js';
import { singleAcquirer } from '../../server/usecases/platform/acquirer-directory.js';
import { freePort, startChild, type ChildService } from '../support/child.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { secretsKeyFor } from '../support/secrets.js';
import { waitFor } from '../support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'payments-keyed-kill-'));
const DATABASE_URL = `sqlite:${join(dir, 'keyed.sqlite')}`;
let current: ChildService | undefined;

afterAll(async () => {
  await current?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('SIGKILL during a keyed charge', () => {
  it('leaves one pending payment, replayed 202 to the retry and settled once by the sweep', async () => {
    // A slow acquirer, so that the kill lands while the charge is being asked for.
    const env = { DATABASE_URL, MAIL_DIR: join(dir, 'mail'), SANDBOX_LATENCY_MS: '1500' };
    const setup = openDatabase(DATABASE_URL);
    await setup.migrate();
    const { key } = await issueKey(setup, (await findOrCreateBusiness(setup, 'Keyed Kill')).id);
    await setup.close();

    const port = await freePort();
    current = await startChild(env, port);
    const api = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${current!.url}/api${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // Deliveries fail (nothing listens there); what matters is what is enqueued.
    expect((await api('/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' })).status).toBe(200);
    const token = (
      (await (await api('/tokenizations/create-token', { email: 'payer@example.com', title: 'Plan', description: 'Plan' })).json()) as {
        data: { _id: string; activation_url: string };
      }
    ).data;
    expect((await submitPage(current.url, token.activation_url, { name: 'Aisyah', ...GOOD_CARD })).status).toBe(303);

    const keyed = { 'Idempotency-Key': `kill-${token._id}` };
    const charge = () => api(`/tokenizations/${token._id}/charges`, { amount: 2500, currency: 'MYR' }, keyed);
    const first = charge().catch((error: unknown) => error);
    const listed = async () =>
      ((await (await api(`/payments?filter[tokenization_id]=${token._id}`, undefined)).json()) as { data: { data: { _id: string; status: string }[] } }).data
        .data;
    const [pending] = await waitFor('the pending payment to be committed', async () => ((await listed()).length > 0 ? await listed() : undefined));
    expect(pending).toMatchObject({ status: 'pending' });
    expect(await current.kill('SIGKILL')).toBeNull();
    // The request died with the process: it was never answered.
    expect(await first).toBeInstanceOf(Error);

    current = await startChild(env, port);
    const retry = await charge();
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { data: unknown }).data).toMatchObject({ _id: pending!._id, status: 'pending' });
    expect(await listed()).toHaveLength(1);
    await current.stop();
    current = undefined;

    // The sweep asks the acquirer again with the first request, and settles the one payment.
    const db = openDatabase(DATABASE_URL);
    try {
      const ctx = {
        db,
        publicUrl: 'http://127.0.0.1',
        acquirers: singleAcquirer(new SandboxAcquirer()),
        settlement: settlementTerms(),
        outbox: { nudge: () => {} },
        webhooks: undefined as never,
        secretsKey: secretsKeyFor(DATABASE_URL),
      };
      const swept = await settleStalePending(ctx, 15 * 60_000, new Date(Date.now() + 16 * 60_000));
      expect(swept).toMatchObject({ settledPayments: 1, abandonedPayments: 0 });
      const payments = await db.all<{ _id: string; status_id: number }>(db.sql('payments').where({ tokenization_id: token._id }).select('_id', 'status_id'));
      expect(payments).toEqual([{ _id: pending!._id, status_id: 1 }]);
      const events = (await db.all<{ topic: string; payload: string }>(db.sql('outbox').where({ channel: 'webhook' }).select('topic', 'payload')))
        .filter((row) => (JSON.parse(row.payload) as { body: { data: { payment_id?: string } } }).body.data.payment_id === pending!._id)
        .map((row) => row.topic);
      expect(events).toEqual(['payment.created']);
    } finally {
      await db.close();
    }
  }, 90_000);
});
