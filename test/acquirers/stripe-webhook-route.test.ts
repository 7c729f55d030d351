// POST /stripe/webhooks/{business} as a stranger meets it: anyone may post, naming any business. The
// route refuses with one answer whatever the reason (so it tells nobody which businesses use Stripe),
// knows the business and the signature before it reads a body, reads at most 64 KiB, refuses a larger
// declared body unread, and counts posts per client address. The reasons are in the service's log.
import { Writable } from 'node:stream';
import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { MAX_NOTIFICATION_BYTES, NOTIFICATION_REFUSED } from '../../server/acquirer-notifications/endpoint.js';
import { setAcquirer } from '../../server/store/acquirer-settings.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { raw, withService, useService } from '../support/service.js';
import { firstAnswer, openSocket } from '../support/sockets.js';
import { useStripeService } from '../support/stripe.js';
import { windowWithTimeLeft } from '../support/window-edge.js';

const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});
const refusals = () =>
  lines
    .map((line) => JSON.parse(line) as { msg: string; business_id?: string; reason?: string })
    .filter((line) => line.msg === 'acquirer notification refused');

/** On Stripe without a key; on Stripe with a key and no webhook signing secret. */
let noKey: number;
let noWebhookSecret: number;
const s = useStripeService({ logger: createLogger({ level: 'info', destination: capture }) });
beforeAll(async () => {
  const { db } = s.t.service;
  noKey = (await findOrCreateBusiness(db, 'Stripe, no key')).id;
  await setAcquirer(db, noKey, 'stripe', {}, s.t.service.secretsKey);
  noWebhookSecret = (await findOrCreateBusiness(db, 'Stripe, no webhook secret')).id;
  await setAcquirer(db, noWebhookSecret, 'stripe', { secretKey: 'sk_test_nowebhooksecret000000' }, s.t.service.secretsKey);
}, 60_000);

let events = 0;
/** A Stripe event about nothing of ours (the service takes it and does nothing), padded with `padding`. */
const event = (padding = '', id = `evt_${Date.now()}_${(events += 1)}`) =>
  JSON.stringify({ id, object: 'event', type: 'customer.created', data: { object: { id: 'cus_1', padding } } });
const signed = (body: string, secret = s.webhookSecret) => Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
const post = (business: string | number, body: string, signature?: string) =>
  raw(`${s.t.url}/stripe/webhooks/${business}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
  });

describe('every refusal is the same 400', () => {
  it('an unknown business, one not on Stripe, one without a key or a signing secret, no signature, a bad one', async () => {
    const body = event();
    // Each with the reason the log gives.
    const cases: [string, string | number, string | undefined, RegExp][] = [
      ['no such business', 999_999, signed(body), /^no such business$/],
      ['not a business id', 'acme', signed(body), /^not a business id$/],
      ['on the sandbox', s.t.b.business.id, signed(body), /no stripe account/],
      ['on Stripe without a key', noKey, signed(body), /no stripe account/],
      ['on Stripe without a webhook signing secret', noWebhookSecret, signed(body), /no stripe webhook signing secret/],
      ['not signed', s.t.a.business.id, undefined, /not signed/],
      ['signed with another secret', s.t.a.business.id, signed(body, 'whsec_someoneelse0000000000000'), /signature/i],
      ['a signature that is not one', s.t.a.business.id, 'v1=deadbeef', /signature/i],
    ];
    const before = refusals().length;
    for (const [name, business, signature] of cases) {
      const answer = await post(business, body, signature);
      expect({ name, status: answer.status, body: answer.body, type: answer.contentType }).toEqual({
        name,
        status: 400,
        body: NOTIFICATION_REFUSED,
        type: 'application/json; charset=utf-8',
      });
    }
    // The log says which refusal each was.
    const logged = refusals().slice(before);
    expect(logged.map((line) => [line.business_id, line.reason])).toEqual(
      cases.map(([, business, , reason]) => [String(business), expect.stringMatching(reason)]),
    );
    // A signed event for the business on Stripe is still taken.
    expect((await post(s.t.a.business.id, body, signed(body))).body).toMatchObject({ received: true, result: 'ignored' });
  });

  it('the business and the signature are checked before the body is read: a refusal does not wait for it', { timeout: 20_000 }, async () => {
    for (const [business, signature] of [
      [999_999, 't=1,v1=00'],
      [s.t.b.business.id, 't=1,v1=00'],
      [s.t.a.business.id, undefined],
    ] as const) {
      const socket = await openSocket(s.t.url);
      try {
        const answer = firstAnswer(socket);
        // Announces 60,000 bytes and sends 10 of them: the answer cannot depend on the rest.
        socket.write(
          `POST /stripe/webhooks/${business} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n` +
            `${signature ? `Stripe-Signature: ${signature}\r\n` : ''}\r\n{"id":"ev`,
        );
        expect(await answer).toMatchObject({ status: 400, body: JSON.stringify(NOTIFICATION_REFUSED) });
      } finally {
        socket.destroy();
      }
    }
  });
});

describe('a business that moves to Stripe through the API', () => {
  it("has its notifications taken at once: the route's remembered 'no Stripe account' is forgotten when the acquirer is set", async () => {
    const body = event();
    // On the sandbox: refused, and the route remembers the business has no Stripe account for a while.
    expect((await post(s.t.b.business.id, body, signed(body))).status).toBe(400);
    const set = await raw(`${s.t.url}/api/business/acquirer`, {
      key: s.t.b.key,
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acquirer: 'stripe', stripe_secret_key: 'sk_test_movedthroughapi0000', stripe_webhook_secret: s.webhookSecret }),
    });
    expect(set.status, set.text).toBe(200);
    const next = event();
    const taken = await post(s.t.b.business.id, next, signed(next));
    expect(taken.status, taken.text).toBe(200);
  });
});

describe('the body is read up to 64 KiB', () => {
  it('a signed event of exactly 64 KiB is taken', async () => {
    const id = `evt_exact_${Date.now()}`;
    const body = event('x'.repeat(MAX_NOTIFICATION_BYTES - Buffer.byteLength(event('', id))), id);
    expect(Buffer.byteLength(body)).toBe(MAX_NOTIFICATION_BYTES);
    const answer = await post(s.t.a.business.id, body, signed(body));
    expect(answer.status).toBe(200);
  });

  it('a body declared larger is 413 unread, for any business alike, and the client reads the answer', async () => {
    const body = event('x'.repeat(MAX_NOTIFICATION_BYTES));
    for (const business of [s.t.a.business.id, 999_999, s.t.b.business.id]) {
      const answer = await post(business, body, signed(body));
      expect({ business, status: answer.status, body: answer.body }).toEqual({
        business,
        status: 413,
        body: { message: 'The notification must not be larger than 64 KiB.' },
      });
      expect(answer.headers.get('connection')).toBe('close');
    }
  });

  it('a body sent without a length stops being read past 64 KiB: the same 400 arrives while the client is still sending', { timeout: 20_000 }, async () => {
    const socket = await openSocket(s.t.url);
    try {
      const answer = firstAnswer(socket);
      socket.write(
        `POST /stripe/webhooks/${s.t.a.business.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n` +
          `Stripe-Signature: ${signed('{}')}\r\n\r\n`,
      );
      // 80 KiB of a body that does not end.
      const chunk = 'x'.repeat(16 * 1024);
      for (let i = 0; i < 5; i += 1) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      expect(await answer).toMatchObject({ status: 400, body: JSON.stringify(NOTIFICATION_REFUSED) });
    } finally {
      socket.destroy();
    }
    expect(refusals().at(-1)).toMatchObject({ reason: expect.stringContaining('longer') });
  });
});

describe('posts are counted per client address', () => {
  const limited = useService({ notificationLimits: { perAddress: 3, windowSeconds: windowWithTimeLeft() } });

  it('past the limit, whichever business they name: 429 with Retry-After, and the client reads it', async () => {
    const at = (business: number) => `${limited.url}/stripe/webhooks/${business}`;
    for (const business of [limited.a.business.id, limited.b.business.id, 999_999])
      expect((await raw(at(business), { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    const refused = await raw(at(limited.a.business.id), {
      method: 'POST',
      body: 'x'.repeat(2 * 1024 * 1024),
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toEqual({ message: expect.stringMatching(/^Too many notifications from this address\. Retry after \d+ seconds\.$/) });
  });

  it('an IPv6 client counts by its /64, as the payer pages count it', async () => {
    await withService({ notificationLimits: { perAddress: 3, windowSeconds: windowWithTimeLeft() }, trustProxyHops: 1 }, async (proxied) => {
      const from = (address: string) =>
        raw(`${proxied.url}/stripe/webhooks/${proxied.a.business.id}`, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        });
      for (const address of ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:ffff::3']) expect((await from(address)).status).toBe(400);
      expect((await from('2001:db8:7:1:abcd::4')).status).toBe(429);
      expect((await from('2001:db8:7:2::1')).status).toBe(400);
    });
  });
});
