// A business on Stripe: every post of the pay form would open a Checkout Session and record a pending
// payment, so a flood of posts is bounded. A browser that posts again while its own checkout is open
// goes back to it; each client (an address, an IPv6 /64) opens only so many checkouts per link and
// window; and a link has at most so many checkouts open at once, however many post at the same moment.
// A payer who finds them all taken is told to come back when one closes; a slot frees itself when its
// payment leaves pending. Against the local Stripe stand-in, counting the sessions it was asked for.
import { describe, expect, it } from 'vitest';
import { Payer, type PageResponse } from '../support/payer.js';
import { openReturn, payOnStripe, useStripeService } from '../support/stripe.js';
import * as create from '../support/factories.js';
import { windowWithTimeLeft } from '../support/window-edge.js';

const OPEN_CHECKOUTS = 8;
const CHECKOUTS_PER_ADDRESS = 2;

const s = useStripeService({
  trustProxyHops: 1,
  pageLimits: { windowSeconds: windowWithTimeLeft(), openCheckoutsPerLink: OPEN_CHECKOUTS, checkoutsPerAddress: CHECKOUTS_PER_ADDRESS },
});

const openLink = () => create.openLink(s.t.a, { minimum_amount: '10.00' });

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
const from = (address: string) => new Payer(s.t.url, { 'x-forwarded-for': address });

/** Our pay page, opened and posted by `payer` (a browser: it keeps its cookie between posts). */
async function post(payer: Payer, url: string, fields: Record<string, string> = {}): Promise<PageResponse> {
  return payer.submit(await payer.open(pathOf(url)), { amount: '25.00', name: 'Aisyah Rahman', email: 'aisyah@example.com', ...fields });
}

/** Checkout Sessions the stand-in was asked to create for the link. */
const sessionsFor = (linkId: string) =>
  s.standin.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path === '/v1/checkout/sessions' &&
      (r.params as { metadata?: Record<string, string> }).metadata?.open_payment_link_id === linkId,
  ).length;

async function pendingOf(linkId: string): Promise<number> {
  const [row] = await s.t.sql('payments').where({ open_payment_link_id: linkId, status_id: 2 }).count({ n: '*' });
  return Number(row!.n);
}

const tally = (answers: PageResponse[]) => answers.reduce<Record<number, number>>((counts, a) => ({ ...counts, [a.status]: (counts[a.status] ?? 0) + 1 }), {});

describe('posting the pay form again', () => {
  it('sends a browser back to its own open checkout: one session and one pending payment however often it posts', async () => {
    const link = await openLink();
    const payer = from('198.51.100.10');
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await post(payer, link.payment_url));
    expect(answers.map((a) => a.status)).toEqual([303, 303, 303, 303]);
    expect(new Set(answers.map((a) => a.location)).size).toBe(1);
    expect(new URL(answers[0]!.location!).origin).toBe(new URL(s.standin.url).origin);
    expect(sessionsFor(link._id)).toBe(1);
    expect(await pendingOf(link._id)).toBe(1);

    // Another amount is another payment: a checkout of its own.
    const other = await post(payer, link.payment_url, { amount: '30.00' });
    expect(other.status).toBe(303);
    expect(other.location).not.toBe(answers[0]!.location);
    expect(sessionsFor(link._id)).toBe(2);

    // Paid on its page: the payer who posts again pays again, on a new checkout.
    const back = await payOnStripe(answers[0]!.location!, { card: '4242 4242 4242 4242' }, 'aisyah@example.com');
    expect((await openReturn(back.location!)).location).toContain('/payment/thank-you');
    const again = await post(from('198.51.100.11'), link.payment_url);
    expect(again.status).toBe(303);
    expect(again.location).not.toBe(answers[0]!.location);
  });
});

describe('a flood of posts', () => {
  it('from a few clients (an IPv6 /64 among them) opens a few checkouts each; a real payer from a fresh address pays', async () => {
    const link = await openLink();
    const clients = ['198.51.100.21', '198.51.100.22', ...Array.from({ length: 6 }, (_, i) => `2001:db8:5:6::${i + 1}`)];
    // Every post from a fresh browser (no cookie to be sent back by), all at once.
    const answers = await Promise.all(clients.flatMap((client) => Array.from({ length: 3 }, () => post(from(client), link.payment_url))));
    // Three clients (two IPv4 addresses, one /64), each its share of checkouts; the rest refused.
    expect(tally(answers)).toEqual({ 303: 3 * CHECKOUTS_PER_ADDRESS, 429: answers.length - 3 * CHECKOUTS_PER_ADDRESS });
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(refused.html).toContain('<h1>Too many attempts</h1>');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(sessionsFor(link._id)).toBe(3 * CHECKOUTS_PER_ADDRESS);
    expect(await pendingOf(link._id)).toBe(3 * CHECKOUTS_PER_ADDRESS);

    const payer = await post(from('203.0.113.80'), link.payment_url, { name: 'Real Payer', email: 'real@example.com' });
    expect(payer.status, payer.html).toBe(303);
    const back = await payOnStripe(payer.location!, { card: '4242 4242 4242 4242' }, 'real@example.com');
    expect((await openReturn(back.location!)).location).toContain('/payment/thank-you');
  });

  it('from many clients at once leaves at most the bound of sessions and pending payments; the next payer is told to come back', async () => {
    const link = await openLink();
    const browsers = Array.from({ length: 5 * OPEN_CHECKOUTS }, (_, i) => from(`198.51.100.${100 + i}`));
    const answers = await Promise.all(browsers.map((browser) => post(browser, link.payment_url)));
    expect(tally(answers)).toEqual({ 303: OPEN_CHECKOUTS, 429: answers.length - OPEN_CHECKOUTS });
    expect(sessionsFor(link._id)).toBe(OPEN_CHECKOUTS);
    expect(await pendingOf(link._id)).toBe(OPEN_CHECKOUTS);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(refused.html).toContain('<h1>Too many payments in progress</h1>');
      expect(refused.html).toContain('You have not been charged.');
      // Until the oldest checkout's page closes at Stripe: an hour at most.
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(3_000);
      expect(retryAfter).toBeLessThanOrEqual(3_600);
    }

    // A payer already on one of them still gets back to it.
    const holder = browsers[answers.findIndex((a) => a.status === 303)]!;
    const own = answers.find((a) => a.status === 303)!.location!;
    expect((await post(holder, link.payment_url)).location).toBe(own);
    expect(sessionsFor(link._id)).toBe(OPEN_CHECKOUTS);

    // One of them is paid: its slot is free, and the next payer gets a checkout.
    const refusedBefore = await post(from('203.0.113.90'), link.payment_url);
    expect(refusedBefore.status).toBe(429);
    const back = await payOnStripe(own, { card: '4242 4242 4242 4242' }, 'aisyah@example.com');
    expect((await openReturn(back.location!)).location).toContain('/payment/thank-you');
    const next = await post(from('203.0.113.91'), link.payment_url);
    expect(next.status, next.html).toBe(303);
    expect(sessionsFor(link._id)).toBe(OPEN_CHECKOUTS + 1);
    expect(await pendingOf(link._id)).toBe(OPEN_CHECKOUTS);
  });
});
