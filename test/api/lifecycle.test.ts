// Links that expire, pause and close: expires_at and max_payments on create and update, pause and
// resume, the payer's page saying why a link takes no payment (410), the sweep that marks expired
// links and announces payment_link.expired once (a paused link stays paused past its expiry), and the
// races that must not let a payment through: payments at the moment of expiry, on an open link and on
// a payment link, more payers than max_payments at once, and a link that expires, closes or is paused
// while a payer's card is being authorised.
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/webhooks.js';
import { isoMicros } from '../../server/domain/time.js';
import { expireDueLinks } from '../../server/usecases/merchant/expiry-sweep.js';
import { assertSchema } from '../support/contract.js';
import { HeldProvider, submitHeld } from '../support/held-provider.js';
import { GOOD_CARD, Payer, submitPage, type PageResponse } from '../support/payer.js';
import { raw } from '../support/service.js';
import { useWebhookService, WEBHOOK_SECRET } from '../support/webhook-service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = WEBHOOK_SECRET;
const provider = new HeldProvider();

// The sweep runs when a test calls it, so each test knows when links are marked.
const w = useWebhookService({ expirySweepMs: 3_600_000, provider });
const { t, receiver } = w;

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
// A link made to expire is made live for an hour, and its expires_at then moved a second into the
// past in its row, as the clock would move it (the API takes only a future expires_at): the steps
// before the expiry are never in a race with it, and no test waits it out. The reads, the payer's
// page and the sweep compare it with the time as usual. The races with the expiry below ('expiry
// against payment') set it the same way, a few hundred ms ahead once the payers' pages are open, and
// then race the real clock.
const LATER = 3_600_000;
const expiresIn = async (table: 'payment_links' | 'open_payment_links', link: { _id: string }, ms: number): Promise<number> => {
  const at = Date.now() + ms;
  await t
    .sql(table)
    .where({ _id: link._id })
    .update({ expires_at: isoMicros(new Date(at)) });
  return at;
};
const pastExpiry = (table: 'payment_links' | 'open_payment_links', link: { _id: string }) => expiresIn(table, link, -1_000);
const sweep = () => expireDueLinks(t.service.context);
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
const pageOf = async (url: string) => (await new Payer(t.url).get(pathOf(url))).status;

const paymentLink = (body: Record<string, unknown> = {}) => create.paymentLink(t.a, body);
const openLink = (body: Record<string, unknown> = {}) => create.openLink(t.a, { minimum_amount: 5, ...body });

const OPEN_FIELDS = { amount: '10.00', name: 'Payer', email: 'payer@example.com', ...GOOD_CARD };
const payOpen = (url: string) => submitPage(t.url, url, OPEN_FIELDS);

describe('expires_at', () => {
  it('must be a date in the future', async () => {
    for (const [expires_at, message] of [
      ['2020-01-01T00:00:00Z', 'The expires at must be a date after now.'],
      ['tomorrow', 'The expires at is not a valid date.'],
    ]) {
      for (const path of ['/payment-links', '/open-payment-links']) {
        const body =
          path === '/payment-links'
            ? { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'X', expires_at }
            : { currency: 'MYR', minimum_amount: 5, title: 'X', expires_at };
        const answer = await raw(`${t.apiUrl}${path}`, {
          method: 'POST',
          key: t.a.key,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(answer.status).toBe(422);
        expect(answer.body).toEqual({ message: 'The given data was invalid.', errors: { expires_at: [message] } });
      }
    }
  });

  it('closes the link when it passes; the sweep marks it and announces it once; a later expires_at revives it', async () => {
    const link = await paymentLink({ expires_at: inMs(LATER), reference: 'EXP-1' });
    expect(link).toMatchObject({ status: 'Active', expires_at: expect.stringMatching(/Z$/) });
    expect(await pageOf(link.payment_url)).toBe(200);
    const late = new Payer(t.url);
    const form = await late.open(new URL(link.payment_url).pathname + new URL(link.payment_url).search);
    await pastExpiry('payment_links', link);
    // Read before the sweep: already shown as what it is.
    const read = (await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } })).data!.data;
    expect(read.status).toBe('Expired');
    expect(await pageOf(link.payment_url)).toBe(410);
    // A form opened before the expiry and sent after it charges nothing.
    expect((await late.submit(form, { name: 'Late', ...GOOD_CARD })).status).toBe(410);

    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await sweep()).toBe(0);
    const listed = await t.a.client.GET('/payment-links', { params: { query: { 'filter[status]': 'Expired', 'filter[reference]': 'EXP-1' } } });
    expect(listed.data!.data.data.map((l) => l._id)).toEqual([link._id]);
    const expiredEvents = () =>
      receiver.requests
        .map((r) => verifyWebhook(r.raw, r.headers as Record<string, string>, SECRET))
        .filter((e) => e.event === 'payment_link.expired' && (e.data as { payment_link_id: string }).payment_link_id === link._id);
    const [event] = await waitFor('payment_link.expired', () => expiredEvents().length > 0 && expiredEvents());
    await assertSchema('PaymentLinkExpiredEvent', event);
    expect(event!.data).toMatchObject({ payment_link_type: 'payment_link', payment_link_reference: 'EXP-1', expires_at: read.expires_at });
    await t.service.worker!.drained();
    expect(expiredEvents()).toHaveLength(1);

    const revived = await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: link._id } },
      body: { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice', expires_at: inMs(60_000) },
    });
    expect(revived.data!.data.status).toBe('Active');
    expect((await submitPage(t.url, link.payment_url, { name: 'Now', ...GOOD_CARD })).status).toBe(303);
  });

  it('closes an open link too, with its state', async () => {
    const link = await openLink({ expires_at: inMs(LATER) });
    expect(link).toMatchObject({ state: 'active', status_id: 1, status: true, max_payments: null, payments_count: 0 });
    await pastExpiry('open_payment_links', link);
    expect(
      (await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } })).data!.data,
    ).toMatchObject({
      state: 'expired',
      status_id: 2,
      status: false,
    });
    expect(await pageOf(link.payment_url)).toBe(410);
    await sweep();
    const inactive = await t.a.client.GET('/open-payment-links', { params: { query: { 'filter[status]': false } } });
    expect(inactive.data!.data.data.map((l) => l._id)).toContain(link._id);
  });
});

describe('pause and resume', () => {
  it('a paused payment link takes no payment, even from a form opened before; resumed, it does', async () => {
    const link = await paymentLink();
    const payer = new Payer(t.url);
    const form = await payer.open(new URL(link.payment_url).pathname + new URL(link.payment_url).search);
    const paused = await t.a.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } });
    expect(paused.data!.data.status).toBe('Paused');
    expect((await t.a.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } })).data!.data.status).toBe(
      'Paused',
    );
    expect(await pageOf(link.payment_url)).toBe(410);
    expect((await payer.submit(form, { name: 'Payer', ...GOOD_CARD })).status).toBe(410);
    expect((await t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': link._id, 'filter[status]': 'paid' } } })).data!.data.total).toBe(
      0,
    );

    const resumed = await t.a.client.POST('/payment-links/{payment_link_id}/resume', { params: { path: { payment_link_id: link._id } } });
    expect(resumed.data!.data.status).toBe('Active');
    expect((await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).status).toBe(303);
    const again = await t.a.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } });
    expect(again.response.status).toBe(409);
    expect(again.error).toEqual({ message: 'The payment link has already been paid.' });
  });

  it('an expired link cannot be resumed or paused; an unknown or foreign link is 404', async () => {
    const link = await paymentLink({ expires_at: inMs(LATER) });
    expect((await t.a.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } })).response.status).toBe(200);
    await pastExpiry('payment_links', link);
    const resumed = await t.a.client.POST('/payment-links/{payment_link_id}/resume', { params: { path: { payment_link_id: link._id } } });
    expect(resumed.response.status).toBe(409);
    expect(resumed.error).toEqual({ message: 'The payment link has expired; give it a later expires_at with PUT first.' });
    expect((await t.b.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } })).response.status).toBe(404);
    const open = await openLink();
    expect(
      (await t.b.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: open._id } } })).response.status,
    ).toBe(404);
  });

  it('pauses and resumes an open link through state and status_id', async () => {
    const link = await openLink();
    const paused = await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: link._id } } });
    expect(paused.data!.data).toMatchObject({ state: 'paused', status_id: 2, status: false });
    expect(await pageOf(link.payment_url)).toBe(410);
    // A PUT keeps it paused.
    const put = await t.a.client.PUT('/open-payment-links/{open_payment_link_id}', {
      params: { path: { open_payment_link_id: link._id } },
      body: { currency: 'MYR', minimum_amount: 5, title: 'Renamed' },
    });
    expect(put.data!.data).toMatchObject({ title: 'Renamed', state: 'paused' });
    const resumed = await t.a.client.POST('/open-payment-links/{open_payment_link_id}/resume', { params: { path: { open_payment_link_id: link._id } } });
    expect(resumed.data!.data).toMatchObject({ state: 'active', status_id: 1, status: true });
    expect((await payOpen(link.payment_url)).status).toBe(303);
  });
});

describe('a pause outlives the expiry', () => {
  const expiredEventsFor = async (id: string) =>
    ((await t.sql('outbox').where({ topic: 'payment_link.expired' }).select('payload')) as { payload: string }[]).filter((row) => row.payload.includes(id));

  it('a paused payment link past its expires_at stays Paused and unannounced; a later expires_at keeps it paused until resumed', async () => {
    const link = await paymentLink({ expires_at: inMs(LATER), reference: 'PAUSE-EXP' });
    expect((await t.a.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } })).data!.data.status).toBe(
      'Paused',
    );
    await pastExpiry('payment_links', link);
    const read = async () => (await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } })).data!.data;
    expect((await read()).status).toBe('Paused');
    await sweep();
    expect((await read()).status).toBe('Paused');
    expect(await expiredEventsFor(link._id)).toEqual([]);
    const listed = async (status: 'Paused' | 'Expired') =>
      (await t.a.client.GET('/payment-links', { params: { query: { 'filter[status]': status, 'filter[reference]': 'PAUSE-EXP' } } })).data!.data.data.map(
        (l) => l._id,
      );
    expect(await listed('Paused')).toEqual([link._id]);
    expect(await listed('Expired')).toEqual([]);
    expect(await pageOf(link.payment_url)).toBe(410);

    // Resuming is refused until the expiry is moved; pausing again changes nothing.
    const resumed = await t.a.client.POST('/payment-links/{payment_link_id}/resume', { params: { path: { payment_link_id: link._id } } });
    expect(resumed.response.status).toBe(409);
    expect(resumed.error).toEqual({ message: 'The payment link has expired; give it a later expires_at with PUT first.' });
    expect((await t.a.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } })).response.status).toBe(200);
    const put = await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: link._id } },
      body: { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice', reference: 'PAUSE-EXP', expires_at: inMs(60_000) },
    });
    expect(put.data!.data.status).toBe('Paused');
    expect(await pageOf(link.payment_url)).toBe(410);
    expect((await t.a.client.POST('/payment-links/{payment_link_id}/resume', { params: { path: { payment_link_id: link._id } } })).data!.data.status).toBe(
      'Active',
    );
    expect((await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).status).toBe(303);
  });

  it('so does a paused open link, and one whose max_payments a PUT has reached cannot be resumed until it is raised', async () => {
    const link = await openLink({ expires_at: inMs(LATER) });
    expect(
      (await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: link._id } } })).response.status,
    ).toBe(200);
    await pastExpiry('open_payment_links', link);
    const read = async () =>
      (await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } })).data!.data;
    expect(await read()).toMatchObject({ state: 'paused', status_id: 2, status: false });
    await sweep();
    expect(await read()).toMatchObject({ state: 'paused', status_id: 2 });
    expect(await expiredEventsFor(link._id)).toEqual([]);
    const resume = () => t.a.client.POST('/open-payment-links/{open_payment_link_id}/resume', { params: { path: { open_payment_link_id: link._id } } });
    expect((await resume()).error).toEqual({ message: 'The open payment link has expired; give it a later expires_at with PUT first.' });
    const put = (body: Record<string, unknown>) =>
      t.a.client.PUT('/open-payment-links/{open_payment_link_id}', {
        params: { path: { open_payment_link_id: link._id } },
        body: { currency: 'MYR', minimum_amount: 5, title: 'Donations', expires_at: inMs(60_000), ...body },
      });
    expect((await put({})).data!.data).toMatchObject({ state: 'paused', status_id: 2 });
    expect((await resume()).data!.data).toMatchObject({ state: 'active', status_id: 1 });
    expect((await payOpen(link.payment_url)).status).toBe(303);

    // Paused with one payment, then limited to one: resuming would open a full link.
    await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: link._id } } });
    expect((await put({ max_payments: 1 })).data!.data).toMatchObject({ state: 'paused', payments_count: 1, max_payments: 1 });
    const full = await resume();
    expect(full.response.status).toBe(409);
    expect(full.error).toEqual({ message: 'The open payment link has taken its max_payments payments; raise max_payments with PUT first.' });
    expect((await read()).state).toBe('paused');
    await put({ max_payments: 2 });
    expect((await resume()).data!.data).toMatchObject({ state: 'active', payments_count: 1 });
  });
});

describe('max_payments', () => {
  it('closes an open link after its last payment; the next payer is told it is closed; a higher limit reopens it', async () => {
    const link = await openLink({ max_payments: 2 });
    expect((await payOpen(link.payment_url)).status).toBe(303);
    expect((await payOpen(link.payment_url)).status).toBe(303);
    const page = await new Payer(t.url).get(new URL(link.payment_url).pathname + new URL(link.payment_url).search);
    expect(page.status).toBe(410);
    expect(page.html).toMatch(/taken all the payments it was open for/);
    const read = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ state: 'exhausted', status_id: 2, payments_count: 2, max_payments: 2 });
    const resume = await t.a.client.POST('/open-payment-links/{open_payment_link_id}/resume', { params: { path: { open_payment_link_id: link._id } } });
    expect(resume.error).toEqual({ message: 'The open payment link has taken its max_payments payments; raise max_payments with PUT first.' });
    const raised = await t.a.client.PUT('/open-payment-links/{open_payment_link_id}', {
      params: { path: { open_payment_link_id: link._id } },
      body: { currency: 'MYR', minimum_amount: 5, title: 'Donations', max_payments: 3 },
    });
    expect(raised.data!.data).toMatchObject({ state: 'active', payments_count: 2 });
    expect((await payOpen(link.payment_url)).status).toBe(303);
    expect(await pageOf(link.payment_url)).toBe(410);
  });

  it('12 payers at once on a link that takes 3: exactly 3 are charged, 5 rounds', async () => {
    for (let round = 0; round < 5; round += 1) {
      const link = await openLink({ max_payments: 3 });
      const path = new URL(link.payment_url).pathname + new URL(link.payment_url).search;
      const payers = Array.from({ length: 12 }, () => new Payer(t.url));
      const forms = await Promise.all(payers.map((payer) => payer.open(path)));
      const answers = await Promise.all(
        payers.map((payer, i) => payer.submit(forms[i]!, { amount: '10.00', name: `P${i}`, email: 'p@example.com', ...GOOD_CARD })),
      );
      expect(answers.filter((a) => a.status === 303)).toHaveLength(3);
      // Whether the page found it closed or the claim lost the last payment, the payer is told it is closed.
      for (const answer of answers.filter((a) => a.status !== 303)) {
        expect(answer.status).toBe(410);
        expect(answer.html).toContain('<h1>Payment link closed</h1>');
      }
      const paid = await t.sql('payments').where({ open_payment_link_id: link._id, status_id: 1 });
      expect(paid).toHaveLength(3);
      const read = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
      expect(read.data!.data).toMatchObject({ state: 'exhausted', payments_count: 3 });
    }
  }, 60_000);
});

describe('expiry against payment', () => {
  it('no payment is recorded after the expiry, however close the payers come to it', async () => {
    const link = await openLink({ expires_at: inMs(LATER) });
    const path = new URL(link.payment_url).pathname + new URL(link.payment_url).search;
    const payers = Array.from({ length: 6 }, () => new Payer(t.url));
    const forms = await Promise.all(payers.map((payer) => payer.open(path)));
    // The payers start 400 ms before the expiry however long the pages took to open on a busy machine:
    // the expiry is set once they are open.
    const expiresAt = await expiresIn('open_payment_links', link, 400);
    const statuses: number[] = [];
    // Each payer submits again and again across the moment of expiry.
    await Promise.all(
      payers.map(async (payer, i) => {
        while (Date.now() < expiresAt + 300) {
          statuses.push(
            (
              await payer.submit(
                { ...forms[i]!, attemptId: `${forms[i]!.attemptId.slice(0, -6)}${String(statuses.length).padStart(6, '0')}` },
                { amount: '10.00', name: 'P', email: 'p@example.com', ...GOOD_CARD },
              )
            ).status,
          );
        }
      }),
    );
    expect(statuses).toContain(303);
    // A payer whose claim came after the expiry is told it expired, as a later one is.
    expect(statuses).toContain(410);
    expect(statuses.filter((status) => status !== 303 && status !== 410)).toEqual([]);
    const paid = (await t.sql('payments').where({ open_payment_link_id: link._id, status_id: 1 }).select('updated_at')) as { updated_at: string | Date }[];
    expect(paid.length).toBeGreaterThan(0);
    for (const payment of paid) expect(new Date(payment.updated_at).getTime()).toBeLessThan(expiresAt);
  }, 30_000);

  it('many payers on a payment link at the moment it expires: at most one payment, never one after expires_at', async () => {
    const outcomes: string[] = [];
    // Each round starts its payers at another distance from the expiry, from well before to just after.
    for (const lead of [300, 120, 60, 30, 10, 0, -20]) {
      const link = await paymentLink({ expires_at: inMs(LATER) });
      const path = new URL(link.payment_url).pathname + new URL(link.payment_url).search;
      const payers = Array.from({ length: 8 }, () => new Payer(t.url));
      const forms = await Promise.all(payers.map((payer) => payer.open(path)));
      // The expiry set once the pages are open, however long that took on a busy machine: each round keeps its distance.
      const expiresAt = await expiresIn('payment_links', link, lead);
      let n = 0;
      await Promise.all(
        payers.map(async (payer, i) => {
          while (Date.now() < expiresAt + 150) {
            n += 1;
            const attemptId = `${forms[i]!.attemptId.slice(0, -6)}${String(n).padStart(6, '0')}`;
            const answer = await payer.submit({ ...forms[i]!, attemptId }, { name: `P${i}`, ...GOOD_CARD });
            outcomes.push(answer.status === 303 ? 'paid' : `${answer.status} ${/<h1>([^<]*)<\/h1>/.exec(answer.html)?.[1]}`);
          }
        }),
      );
      const paid = (await t.sql('payments').where({ payment_link_id: link._id, status_id: 1 }).select('updated_at')) as { updated_at: string | Date }[];
      expect(paid.length, `lead ${lead}`).toBeLessThanOrEqual(1);
      for (const payment of paid) expect(new Date(payment.updated_at).getTime(), `lead ${lead}`).toBeLessThan(expiresAt);
      const read = (await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } })).data!.data;
      expect(read.status, `lead ${lead}`).toBe(paid.length === 1 ? 'Paid' : 'Expired');
    }
    // Every other payer, whether the page or the claim turned it away, is told the link was paid or expired.
    expect(outcomes.filter((outcome) => !['paid', '409 Already paid', '410 Payment link expired'].includes(outcome))).toEqual([]);
    expect(outcomes).toContain('paid');
    expect(outcomes).toContain('410 Payment link expired');
  }, 60_000);
});

describe('a change while the acquirer authorises', () => {
  // Each payer passed the page's own checks, and its card is being authorised, when the link stops
  // taking payment: only the claim in the transaction that would record the payment can refuse it.

  /** The payer's authorisation was let go, its attempt failed as a lost claim, and its page says why. */
  async function expectLostClaim(held: { request: { reference: string } }, answer: PageResponse, heading: string) {
    expect(answer.status, answer.html).toBe(410);
    expect(answer.html).toContain(`<h1>${heading}</h1>`);
    expect(answer.html).toContain('You have not been charged.');
    const payment = await t.sql('payments').where({ _id: held.request.reference }).first();
    expect(payment).toMatchObject({ status_id: 3, failure_code: 'link_unavailable' });
    const authorization = provider.authorized.get(held.request.reference);
    expect(authorization).toBeDefined();
    expect(provider.voided).toContain(authorization);
    expect(provider.captured).not.toContain(authorization);
  }

  it('a payment link that expires meanwhile takes no payment, and reads expired', async () => {
    const link = await paymentLink({ expires_at: inMs(LATER) });
    const payer = new Payer(t.url);
    const held = await submitHeld(provider, payer, await payer.open(pathOf(link.payment_url)), { name: 'Payer', ...GOOD_CARD });
    await pastExpiry('payment_links', link);
    await expectLostClaim(held, await held.finish(), 'Payment link expired');
    expect(await t.sql('payments').where({ payment_link_id: link._id, status_id: 1 })).toHaveLength(0);
    const read = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ status: 'Expired', paid: false });
    expect(await pageOf(link.payment_url)).toBe(410);
  });

  it('an open link that expires meanwhile takes no payment, and reads expired', async () => {
    const link = await openLink({ expires_at: inMs(LATER) });
    const payer = new Payer(t.url);
    const held = await submitHeld(provider, payer, await payer.open(pathOf(link.payment_url)), OPEN_FIELDS);
    await pastExpiry('open_payment_links', link);
    await expectLostClaim(held, await held.finish(), 'Payment link expired');
    expect(await t.sql('payments').where({ open_payment_link_id: link._id, status_id: 1 })).toHaveLength(0);
    const read = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ state: 'expired', status_id: 2, payments_count: 0 });
  });

  it('an open link with max_payments: 1 whose last payment another payer took meanwhile takes no second one', async () => {
    const link = await openLink({ max_payments: 1 });
    const [slow, quick] = [new Payer(t.url), new Payer(t.url)];
    const [slowForm, quickForm] = [await slow.open(pathOf(link.payment_url)), await quick.open(pathOf(link.payment_url))];
    const held = await submitHeld(provider, slow, slowForm, OPEN_FIELDS);
    expect((await quick.submit(quickForm, OPEN_FIELDS)).status).toBe(303);
    await expectLostClaim(held, await held.finish(), 'Payment link closed');
    const paid = await t.sql('payments').where({ open_payment_link_id: link._id, status_id: 1 }).select('attempt_id');
    expect(paid).toEqual([{ attempt_id: quickForm.attemptId }]);
    const read = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ state: 'exhausted', status_id: 2, payments_count: 1 });
  });

  it('a payment link paused meanwhile takes no payment, and reads paused', async () => {
    const link = await paymentLink();
    const payer = new Payer(t.url);
    const held = await submitHeld(provider, payer, await payer.open(pathOf(link.payment_url)), { name: 'Payer', ...GOOD_CARD });
    const paused = await t.a.client.POST('/payment-links/{payment_link_id}/pause', { params: { path: { payment_link_id: link._id } } });
    expect(paused.data!.data.status).toBe('Paused');
    await expectLostClaim(held, await held.finish(), 'Payment link paused');
    expect(await t.sql('payments').where({ payment_link_id: link._id, status_id: 1 })).toHaveLength(0);
    const read = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ status: 'Paused', paid: false });
  });

  it('an open link paused meanwhile takes no payment, and reads paused', async () => {
    const link = await openLink();
    const payer = new Payer(t.url);
    const held = await submitHeld(provider, payer, await payer.open(pathOf(link.payment_url)), OPEN_FIELDS);
    const paused = await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: link._id } } });
    expect(paused.data!.data.state).toBe('paused');
    await expectLostClaim(held, await held.finish(), 'Payment link paused');
    const read = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ state: 'paused', payments_count: 0 });
  });
});
