// Liveness, readiness and a graceful stop: SIGTERM stops accepting, lets requests and deliveries
// under way finish, closes the pool and exits 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { probesMiddleware } from '../../server/http/app.js';
import { findBusinessByName, setWebhook } from '../../server/store/businesses.js';
import { openDatabase, type Database } from '../../server/store/database.js';
import { listOutbox } from '../../server/store/outbox.js';
import { listPaymentsForLink } from '../../server/store/payments.js';
import { createPaymentsClient } from '../../client/index.js';
import { freePort, startChild, type ChildService } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { secretsKeyFor } from '../support/secrets.js';
import { withService } from '../support/service.js';
import { sleep, waitFor } from '../support/wait.js';

describe('/health and /ready', () => {
  it('answer 200 on a running service', async () => {
    await withService({}, async (t) => {
      const health = await fetch(`${t.url}/health`);
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
      const ready = await fetch(`${t.url}/ready`);
      expect([ready.status, await ready.json()]).toEqual([
        200,
        { status: 'ready', dependencies: { database: { status: 'up', latency_ms: expect.any(Number) } } },
      ]);
    });
  });

  it('/ready answers 503 while draining or when a dependency does not answer, naming each with its latency', async () => {
    const probe = async (deps: Parameters<typeof probesMiddleware>[0]) => {
      const app = new Koa().use(probesMiddleware(deps));
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const response = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/ready`);
        return [response.status, await response.json()];
      } finally {
        server.close();
      }
    };
    const failing = () => Promise.reject(new Error('connection refused'));
    const working = () => Promise.resolve();
    const up = { status: 'up', latency_ms: expect.any(Number) };
    const down = { status: 'down', latency_ms: expect.any(Number) };
    expect(await probe({ dependencies: { database: working }, draining: () => true })).toEqual([503, { status: 'unavailable', reason: 'shutting down' }]);
    expect(await probe({ dependencies: { database: failing }, draining: () => false })).toEqual([
      503,
      { status: 'unavailable', reason: 'database unreachable', dependencies: { database: down } },
    ]);
    expect(await probe({ dependencies: { database: working, redis: failing }, draining: () => false })).toEqual([
      503,
      { status: 'unavailable', reason: 'redis unreachable', dependencies: { database: up, redis: down } },
    ]);
    expect(await probe({ dependencies: { database: working, redis: working }, draining: () => false })).toEqual([
      200,
      { status: 'ready', dependencies: { database: up, redis: up } },
    ]);
  });
});

describe('SIGTERM', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-shutdown-'));
  let database: TestDatabase | undefined;
  let db: Database | undefined;
  let child: ChildService | undefined;
  let receiver: Receiver | undefined;
  afterAll(async () => {
    await child?.kill('SIGKILL');
    await db?.close();
    await database?.drop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes the payment and the webhook under way, refuses new connections, and exits 0', async () => {
    // The webhook receiver takes a second to answer, the acquirer 1.5 s: both are in flight at SIGTERM.
    // eslint-disable-next-line no-restricted-syntax -- the receiver answering late is the scenario, not a wait of the test's
    receiver = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 1_000)));
    database = await createTestDatabase(dir);
    const port = await freePort();
    child = await startChild({ DATABASE_URL: database.url, SANDBOX_LATENCY_MS: '1500', OUTBOX_POLL_MS: '50', MAIL_DIR: join(dir, 'mail') }, port);
    const key = /sk_[A-Za-z0-9_-]{43}/.exec(child.output())![0];
    db = openDatabase(database.url);
    await setWebhook(
      db,
      (await findBusinessByName(db, 'Demo Business'))!.id,
      { url: receiver.url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      secretsKeyFor(database.url),
    );
    const client = createPaymentsClient({ baseUrl: `${child.url}/api`, apiKey: key });

    // A first payment whose webhook is being delivered when the signal arrives.
    const first = (await client.POST('/payment-links', { body: { email: 'a@example.com', currency: 'MYR', amount: 1000, title: 'First' } })).data!.data;
    const payer = new Payer(child.url);
    const firstUrl = new URL(first.payment_url);
    expect((await payer.submit(await payer.open(firstUrl.pathname + firstUrl.search), { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
    await waitFor('the webhook delivery to start', () => receiver!.requests.length === 1);

    // A second payment still at the acquirer when the signal arrives.
    const second = (await client.POST('/payment-links', { body: { email: 'b@example.com', currency: 'MYR', amount: 2000, title: 'Second' } })).data!.data;
    const secondUrl = new URL(second.payment_url);
    const form = await payer.open(secondUrl.pathname + secondUrl.search);
    const inFlight = payer.submit(form, { name: 'Siti', ...GOOD_CARD });
    await sleep(300);
    child.child.kill('SIGTERM');
    await waitFor('new connections refused', () =>
      fetch(`${child!.url}/health`).then(
        () => false,
        () => true,
      ),
    );

    expect((await inFlight).status).toBe(303);
    expect(await child.exited).toBe(0);
    expect(child.output()).toContain('SIGTERM: finishing requests and deliveries under way');
    expect(child.output()).toContain('stopped');
    expect((await listPaymentsForLink(db, second._id)).map((p) => p.status_id)).toEqual([1]);
    const webhooks = await listOutbox(db, { channel: 'webhook' });
    expect(webhooks.map((e) => e.status)).toContain('delivered');
  }, 60_000);
});
