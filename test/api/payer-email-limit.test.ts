// The daily cap on payer e-mails a business's API calls send (PAYER_EMAILS_PER_DAY): past it a
// request with send_email is refused whole (422 on send_email, nothing written, no e-mail), counted
// exactly under concurrent requests, per business, and open again once the UTC day turns.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { listOutbox } from '../../server/store/outbox.js';
import { useServicePerTest, type TestService } from '../support/service.js';

let t: TestService | undefined;
const serviceWith = useServicePerTest();

const LIMIT = 3;
const linkBody = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1001' };

async function linksOf(t: TestService, businessId: number): Promise<number> {
  const [row] = await t.sql('payment_links').where({ business_id: businessId }).count({ n: '*' });
  return Number(row!.n);
}

async function emailsOf(t: TestService, businessId: number): Promise<number> {
  return (await listOutbox(t.service.db, { channel: 'email' })).filter((entry) => entry.business_id === businessId).length;
}

/** The day the business's counter counts for, moved back a day: what the service sees once the UTC day has turned. */
async function turnTheDay(t: TestService): Promise<void> {
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  await t.sql('payer_email_counts').update({ day: yesterday });
}

describe('payer e-mails per business and day', () => {
  it('refuses the request past the cap with a 422 on send_email saying the limit and when it resets, and writes nothing', async () => {
    t = await serviceWith({ payerEmailsPerDay: LIMIT });
    for (let i = 0; i < LIMIT; i += 1) {
      const { response } = await t.a.client.POST('/payment-links', { body: { ...linkBody, send_email: true } });
      expect(response.status).toBe(200);
    }
    const refused = await t.a.client.POST('/payment-links', { body: { ...linkBody, title: 'One too many', send_email: true } });
    expect(refused.response.status).toBe(422);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(refused.error).toEqual({
      message: 'The given data was invalid.',
      errors: {
        send_email: [
          `The send email limit of ${LIMIT} payer e-mails a day has been reached; it resets at ${tomorrow} 00:00:00 UTC. Nothing was saved: send the request again then, or without send_email.`,
        ],
      },
    });
    const retryAfter = Number(refused.response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await linksOf(t, t.a.business.id)).toBe(LIMIT);
    expect(await t.sql('payment_links').where({ title: 'One too many' })).toEqual([]);
    expect(await emailsOf(t, t.a.business.id)).toBe(LIMIT);

    // Without an e-mail the merchant still creates links; another business has its own count.
    expect((await t.a.client.POST('/payment-links', { body: linkBody })).response.status).toBe(200);
    expect((await t.b.client.POST('/payment-links', { body: { ...linkBody, send_email: true } })).response.status).toBe(200);
    expect(await emailsOf(t, t.b.business.id)).toBe(1);
  });

  it('refuses an update that asks for the e-mail past the cap, leaving the link as it was', async () => {
    t = await serviceWith({ payerEmailsPerDay: 1 });
    const { data } = await t.a.client.POST('/payment-links', { body: { ...linkBody, send_email: true } });
    const id = data!.data._id;
    const refused = await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: id } },
      body: { ...linkBody, amount: 2500, title: 'Revised', send_email: true },
    });
    expect(refused.response.status).toBe(422);
    expect(Object.keys((refused.error as { errors?: object }).errors ?? {})).toEqual(['send_email']);
    const { data: now } = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
    expect(now!.data).toMatchObject({ amount: 1000, title: 'Invoice 1001', updated_at: data!.data.updated_at });
    expect(await emailsOf(t, t.a.business.id)).toBe(1);
  });

  it('lets exactly the cap through when requests race', async () => {
    const limit = 5;
    t = await serviceWith({ payerEmailsPerDay: limit });
    const service = t;
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => service.a.client.POST('/payment-links', { body: { ...linkBody, title: `Race ${i}`, send_email: true } })),
    );
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(limit);
    expect(statuses.filter((status) => status === 422)).toHaveLength(24 - limit);
    expect(await linksOf(t, t.a.business.id)).toBe(limit);
    expect(await emailsOf(t, t.a.business.id)).toBe(limit);
  });

  it('opens again when the UTC day turns, and keeps no refusal under an Idempotency-Key', async () => {
    t = await serviceWith({ payerEmailsPerDay: 1 });
    await t.a.client.POST('/payment-links', { body: { ...linkBody, send_email: true } });
    const key = 'b7f1c0de-5a1e-4c3b-9d2e-1f0a2b3c4d5e';
    const body = { ...linkBody, title: 'Tomorrow', send_email: true };
    const refused = await t.a.client.POST('/payment-links', { body, headers: { 'Idempotency-Key': key } });
    expect(refused.response.status).toBe(422);
    expect(await t.sql('idempotency_keys').where({ idempotency_key: key })).toEqual([]);

    await turnTheDay(t);
    const sent = await t.a.client.POST('/payment-links', { body, headers: { 'Idempotency-Key': key } });
    expect(sent.response.status).toBe(200);
    expect(sent.response.headers.get('idempotent-replayed')).toBeNull();
    expect(sent.data!.data.title).toBe('Tomorrow');
    const replay = await t.a.client.POST('/payment-links', { body, headers: { 'Idempotency-Key': key } });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data!.data._id).toBe(sent.data!.data._id);
    expect(await emailsOf(t, t.a.business.id)).toBe(2);
  });
});

describe('PAYER_EMAILS_PER_DAY', () => {
  it('is 1,000 unless set, and an integer from 0', () => {
    expect(loadConfig({}).payerEmailsPerDay).toBe(1_000);
    expect(loadConfig({ PAYER_EMAILS_PER_DAY: '50' }).payerEmailsPerDay).toBe(50);
    expect(() => loadConfig({ PAYER_EMAILS_PER_DAY: 'many' })).toThrow(/PAYER_EMAILS_PER_DAY must be an integer from 0/);
  });
});
