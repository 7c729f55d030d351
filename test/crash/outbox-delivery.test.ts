// Nothing lost, nothing sent twice: the server is killed (SIGKILL) after a payment commits and
// before its notifications go out; the restarted server delivers each exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPaymentsClient } from '../../client/index.js';
import { verifyWebhook } from '../../client/webhooks.js';
import { findBusinessByName, setWebhook } from '../../server/store/businesses.js';
import { openDatabase, type Database } from '../../server/store/database.js';
import { listOutbox } from '../../server/store/outbox.js';
import { freePort, startChild, type ChildService } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { secretsKeyFor } from '../support/secrets.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { waitFor } from '../support/wait.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const dir = mkdtempSync(join(tmpdir(), 'payments-crash-'));
const children: ChildService[] = [];
let smtp: TestSmtp;
let receiver: Receiver;
let db: Database;
let database: TestDatabase | undefined;

afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  await db?.close();
  await database?.drop();
  await smtp?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a crash between commit and delivery', () => {
  it('delivers the payment e-mails and webhook exactly once after a restart', async () => {
    smtp = await startSmtp();
    receiver = await startReceiver();
    const port = await freePort();
    database = await createTestDatabase(dir);
    const env = { DATABASE_URL: database.url, SMTP_URL: smtp.url, OUTBOX_POLL_MS: '100' };

    // The first process takes the payment but, with its worker off, cannot deliver anything.
    const first = await startChild({ ...env, OUTBOX_WORKER: 'off' }, port);
    children.push(first);
    const key = /sk_[A-Za-z0-9_-]{43}/.exec(first.output())?.[0];
    expect(key).toBeDefined();
    db = openDatabase(env.DATABASE_URL);
    const business = await findBusinessByName(db, 'Demo Business');
    await setWebhook(db, business!.id, { url: receiver.url, secret: SECRET }, secretsKeyFor(env.DATABASE_URL));

    const client = createPaymentsClient({ baseUrl: `${first.url}/api`, apiKey: key! });
    const { data } = await client.POST('/payment-links', {
      body: { email: 'payer@example.com', currency: 'MYR', amount: 2500, title: 'Crash test', send_email: true },
    });
    const url = new URL(data!.data.payment_url);
    const payer = new Payer(first.url);
    const paid = await payer.submit(await payer.open(url.pathname + url.search), { name: 'Ali', ...GOOD_CARD });
    expect(paid.status).toBe(303);

    expect(await first.kill('SIGKILL')).toBeNull();
    const pending = await listOutbox(db, { status: 'pending' });
    expect(pending.map((e) => e.topic).sort()).toEqual(['payment.created', 'payment.receipt', 'payment_link.sent']);
    expect(smtp.messages).toHaveLength(0);
    expect(receiver.requests).toHaveLength(0);

    // The restarted process delivers what the first one committed.
    const second = await startChild(env, port);
    children.push(second);
    await waitFor('both e-mails and the webhook', () => smtp.messages.length === 2 && receiver.requests.length === 1, 20_000);
    // Nothing left to send (the restarted process is another process: its outbox is read, not awaited).
    await waitFor('every entry settled', async () => (await listOutbox(db, { status: 'pending' })).length === 0);
    expect(smtp.messages.map((m) => m.subject).sort()).toEqual([
      'Payment request from Demo Business: Crash test (RM 25.00)',
      'Receipt: RM 25.00 to Demo Business',
    ]);
    expect(receiver.requests).toHaveLength(1);
    const event = verifyWebhook(receiver.requests[0]!.raw, receiver.requests[0]!.headers as Record<string, string>, SECRET);
    expect(event.data).toMatchObject({
      payment_id: new URL(paid.location!).searchParams.get('payment_id'),
      payment_amount: 2500,
      payment_amount_decimal: '25.00',
    });
    expect((await listOutbox(db)).map((e) => [e.topic, e.status, e.attempts])).toEqual([
      ['payment_link.sent', 'delivered', 1],
      ['payment.receipt', 'delivered', 1],
      ['payment.created', 'delivered', 1],
    ]);
    await second.kill('SIGTERM');
  }, 90_000);
});
