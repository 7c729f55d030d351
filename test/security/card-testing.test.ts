// Card testing through the payer forms: anyone may post them, so posts are limited per client, declines
// per link (or token) and attempts per card, and every decline reads the same to the payer. A refused
// attempt is a 429 page with Retry-After and leaves no payment row, no acquirer call and no receipt.
// And nobody can lock a link against its real payers with those limits: a link counts declines, not
// posts (anyone can post a valid form any number of times; a decline needs a card the acquirer refuses,
// and each card number is limited on its own, before the link is looked at), and a client is an address,
// an IPv6 address's /64 (what one subscriber holds) or an IPv4-mapped address's IPv4 address. The suites
// make client addresses with TRUST_PROXY_HOPS=1 and X-Forwarded-For. (On a hosted acquirer's page:
// test/acquirers/stripe-checkout-flood.test.ts.)
import { describe, expect, it } from 'vitest';
import type { Card } from '../../server/acquirers/cards.js';
import type { AuthorizeRequest } from '../../server/acquirers/acquirer.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { DECLINED_CARD, ERROR_CARD, GOOD_CARD, NO_FUNDS_CARD, Payer, type PageResponse } from '../support/payer.js';
import { useService, withService, type TestService, type TestServiceOptions } from '../support/service.js';
import * as create from '../support/factories.js';
import { windowWithTimeLeft } from '../support/window-edge.js';

/** The counting window of the service the current test runs: an hour or a little more (`windowWithTimeLeft`). */
let windowSeconds = 3_600;
/** A card that passes Luhn but is no sandbox test card: declined as test_card_required. */
const OTHER_CARD = { card_number: '6011 1111 1111 1117', expiry: '12/39', cvc: '123' };
/** A sandbox card that succeeds, other than GOOD_CARD: a real payer's own. */
const OWN_CARD = { card_number: '5555 5555 5555 4444', expiry: '12/39', cvc: '123' };

/** Counts what reaches the acquirer. */
class CountingProvider extends SandboxAcquirer {
  authorizations = 0;
  savedCards = 0;
  override async authorize(request: AuthorizeRequest) {
    this.authorizations += 1;
    return super.authorize(request);
  }
  override async saveCard(card: Card) {
    this.savedCards += 1;
    return super.saveCard(card);
  }
}

/** Burst tests must not straddle a window boundary: each service counts in a window with ten minutes left at least. */
async function withCountingService(options: TestServiceOptions, work: (t: TestService, provider: CountingProvider) => Promise<void>): Promise<void> {
  const provider = new CountingProvider();
  windowSeconds = windowWithTimeLeft();
  await withService({ ...options, provider, pageLimits: { windowSeconds, ...options.pageLimits } }, (t) => work(t, provider));
}

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

const openLink = (t: TestService) => create.openLink(t.a, { minimum_amount: '10.00' });

const paymentLink = (t: TestService) => create.paymentLink(t.a, { amount: 1500 });

async function payOpenLink(
  t: TestService,
  url: string,
  card: Record<string, string>,
  payer = new Payer(t.url),
  email = 'ali@example.com',
): Promise<PageResponse> {
  const form = await payer.open(pathOf(url));
  return payer.submit(form, { amount: '10.00', name: 'Ali', email, ...card });
}

async function countRows(t: TestService, table: string, where: Record<string, unknown>): Promise<number> {
  const [row] = await t.sql(table).where(where).count({ n: '*' });
  return Number(row!.n);
}

/** A payer whose requests come, through the proxy (TRUST_PROXY_HOPS=1), from `address`. */
const from = (t: TestService, address: string) => new Payer(t.url, { 'x-forwarded-for': address });

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

function expectTooMany(page: PageResponse) {
  expect(page.status).toBe(429);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const retryAfter = Number(page.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(page.html).toContain('<h1>Too many attempts</h1>');
  expect(page.html).toContain('You have not been charged.');
  expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(page.location).toBeNull();
}

describe('per client address', () => {
  it('a burst of card attempts on one open link is cut off at the limit: no payment row, acquirer call or receipt past it', async () => {
    await withCountingService({ pageLimits: { perAddress: 5 } }, async (t, provider) => {
      const link = await openLink(t);
      const cards = [
        DECLINED_CARD,
        NO_FUNDS_CARD,
        ERROR_CARD,
        OTHER_CARD,
        GOOD_CARD,
        GOOD_CARD,
        DECLINED_CARD,
        GOOD_CARD,
        OTHER_CARD,
        NO_FUNDS_CARD,
        GOOD_CARD,
        GOOD_CARD,
      ];
      const answers: PageResponse[] = [];
      for (const [i, card] of cards.entries()) answers.push(await payOpenLink(t, link.payment_url, card, new Payer(t.url), `chosen${i}@example.com`));
      expect(answers.map((a) => a.status)).toEqual([402, 402, 402, 402, 303, 429, 429, 429, 429, 429, 429, 429]);
      for (const refused of answers.slice(5)) expectTooMany(refused);
      expect(await countRows(t, 'payments', { open_payment_link_id: link._id })).toBe(5);
      expect(provider.authorizations).toBe(5);
      // Receipts go to addresses the payer types in: the limit bounds them too.
      expect(await countRows(t, 'outbox', { business_id: t.a.business.id, topic: 'payment.receipt' })).toBe(1);
    });
  });

  it('counts every post, the ones with mistakes too, and a forged X-Forwarded-For does not make a new client', async () => {
    await withCountingService({ pageLimits: { perAddress: 3 } }, async (t, provider) => {
      const link = await openLink(t);
      const mistakes = await payOpenLink(t, link.payment_url, { ...GOOD_CARD, cvc: '' });
      expect(mistakes.status).toBe(422);
      expect((await payOpenLink(t, link.payment_url, GOOD_CARD)).status).toBe(303);
      expect((await payOpenLink(t, link.payment_url, GOOD_CARD, new Payer(t.url, { 'x-forwarded-for': '198.51.100.1' }))).status).toBe(303);
      for (const forged of ['198.51.100.2', '203.0.113.9, 198.51.100.3'])
        expectTooMany(await payOpenLink(t, link.payment_url, GOOD_CARD, new Payer(t.url, { 'x-forwarded-for': forged })));
      expect(provider.authorizations).toBe(2);
    });
  });

  it('behind a proxy (TRUST_PROXY_HOPS=1), the address the proxy appended is the client, whatever came before it', async () => {
    await withCountingService({ pageLimits: { perAddress: 2 }, trustProxyHops: 1 }, async (t) => {
      const link = await openLink(t);
      const from = (chain: string) => new Payer(t.url, { 'x-forwarded-for': chain });
      expect((await payOpenLink(t, link.payment_url, GOOD_CARD, from('198.51.100.7'))).status).toBe(303);
      expect((await payOpenLink(t, link.payment_url, GOOD_CARD, from('203.0.113.1, 198.51.100.7'))).status).toBe(303);
      expectTooMany(await payOpenLink(t, link.payment_url, GOOD_CARD, from('203.0.113.2, 198.51.100.7')));
      expect((await payOpenLink(t, link.payment_url, GOOD_CARD, from('198.51.100.8'))).status).toBe(303);
    });
  });
});

describe('per link and per card', () => {
  it('declines on one link from many addresses stop at the link limit; payments in between do not count; other links are untouched', async () => {
    await withCountingService({ pageLimits: { perLink: 4 }, trustProxyHops: 1 }, async (t, provider) => {
      const link = await openLink(t);
      const statuses: number[] = [];
      for (let i = 0; i < 11; i += 1)
        statuses.push(
          (await payOpenLink(t, link.payment_url, i % 2 ? DECLINED_CARD : GOOD_CARD, new Payer(t.url, { 'x-forwarded-for': `198.51.100.${i + 1}` }))).status,
        );
      expect(statuses).toEqual([303, 402, 303, 402, 303, 402, 303, 402, 429, 429, 429]);
      expect(await countRows(t, 'payments', { open_payment_link_id: link._id })).toBe(8);
      expect(provider.authorizations).toBe(8);
      const other = await openLink(t);
      expect((await payOpenLink(t, other.payment_url, GOOD_CARD)).status).toBe(303);
    });
  });

  it('one card number tried across links stops at the card limit; another card goes through', async () => {
    await withCountingService({ pageLimits: { perCard: 3 } }, async (t, provider) => {
      const statuses: number[] = [];
      const links = [];
      for (let i = 0; i < 5; i += 1) {
        const link = await paymentLink(t);
        links.push(link);
        const payer = new Payer(t.url);
        // The same number however it is typed: spaces, dashes or none.
        const typed = ['4000 0000 0000 0002', '4000-0000-0000-0002', '4000000000000002', '4000 0000 0000 0002', '4000000000000002'][i]!;
        statuses.push((await payer.submit(await payer.open(pathOf(link.payment_url)), { name: 'Ali', ...DECLINED_CARD, card_number: typed })).status);
      }
      expect(statuses).toEqual([402, 402, 402, 429, 429]);
      expect(provider.authorizations).toBe(3);
      for (const link of links.slice(3)) expect(await countRows(t, 'payments', { payment_link_id: link._id })).toBe(0);
      const payer = new Payer(t.url);
      expect((await payer.submit(await payer.open(pathOf(links[4]!.payment_url)), { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
    });
  });

  it('the activation page is limited per token too, before the acquirer is asked to save a card', async () => {
    await withCountingService({ pageLimits: { perLink: 2 } }, async (t, provider) => {
      const { data } = await t.a.client.POST('/tokenizations/create-token', {
        body: { email: 'payer@example.com', title: 'Plan', description: 'Card for the plan' },
      });
      const path = new URL(data!.data.activation_url).pathname;
      const statuses: number[] = [];
      for (const card of [DECLINED_CARD, NO_FUNDS_CARD, GOOD_CARD]) {
        const payer = new Payer(t.url);
        statuses.push((await payer.submit(await payer.open(path), { name: 'Ali', ...card })).status);
      }
      expect(statuses).toEqual([402, 402, 429]);
      expect(provider.savedCards).toBe(2);
    });
  });
});

describe('nobody locks a link', () => {
  it('valid forms and declined cards from several clients (IPv4, an IPv6 /64, IPv4-mapped): a real payer from a fresh address still pays', async () => {
    await withCountingService({ pageLimits: { perAddress: 8, perLink: 5, perCard: 2 }, trustProxyHops: 1 }, async (t) => {
      const link = await openLink(t);
      const clients = ['198.51.100.1', '198.51.100.2', '2001:db8:7:1::1', '2001:db8:7:1::2', '::ffff:198.51.100.3'];
      const cards = [DECLINED_CARD, GOOD_CARD, NO_FUNDS_CARD];
      const statuses: number[] = [];
      for (const client of clients) {
        for (let i = 0; i < 8; i += 1) statuses.push((await payOpenLink(t, link.payment_url, cards[i % cards.length]!, from(t, client))).status);
      }
      // Each card number twice: two payments and four declines; every post past that is its card's
      // limit (or, for the /64's second address, its client's), none the link's.
      expect(tally(statuses)).toEqual({ 303: 2, 402: 4, 429: 34 });
      const paid = await payOpenLink(t, link.payment_url, OWN_CARD, from(t, '203.0.113.50'));
      expect(paid.status, paid.html).toBe(303);
    });
  });

  it('a card past its own limit is refused before the link is looked at: however often it is posted, the link stays payable', async () => {
    await withCountingService({ pageLimits: { perCard: 2, perLink: 3 }, trustProxyHops: 1 }, async (t, provider) => {
      const link = await paymentLink(t);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i += 1) statuses.push((await payOpenLink(t, link.payment_url, DECLINED_CARD, from(t, `198.51.100.${i + 1}`))).status);
      expect(statuses).toEqual([402, 402, ...Array<number>(8).fill(429)]);
      expect(provider.authorizations).toBe(2);
      expect(await countRows(t, 'payments', { payment_link_id: link._id })).toBe(2);
      expect((await payOpenLink(t, link.payment_url, GOOD_CARD, from(t, '203.0.113.60'))).status).toBe(303);
    });
  });
});

describe('clients are counted by address', () => {
  it('an IPv6 address by its /64, an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    await withCountingService({ pageLimits: { perAddress: 3 }, trustProxyHops: 1 }, async (t) => {
      const link = await openLink(t);
      // A form with a mistake: counted against its client, never near the acquirer.
      const posts = async (addresses: string[]) => {
        const statuses = [];
        for (const address of addresses) statuses.push((await payOpenLink(t, link.payment_url, { ...GOOD_CARD, cvc: '' }, from(t, address))).status);
        return statuses;
      };
      expect(await posts(['2001:db8:1:2::1', '2001:db8:1:2:ffff::2', '2001:DB8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::99'])).toEqual([422, 422, 422, 429]);
      // The next /64 is another client.
      expect(await posts(['2001:db8:1:3::1'])).toEqual([422]);
      expect(await posts(['198.51.100.7', '::ffff:198.51.100.7', '::ffff:c633:6407', '198.51.100.7'])).toEqual([422, 422, 422, 429]);
      expect(await posts(['198.51.100.8'])).toEqual([422]);
    });
  });
});

describe('one decline text for every decline reason', () => {
  const t = useService();

  it('the payer reads the same page for every kind of decline; the payment keeps the precise failure_code', async () => {
    const cases = [
      [DECLINED_CARD, 'card_declined'],
      [NO_FUNDS_CARD, 'insufficient_funds'],
      [ERROR_CARD, 'processing_error'],
      [OTHER_CARD, 'test_card_required'],
    ] as const;
    const alerts = new Set<string>();
    for (const [card, code] of cases) {
      const link = await paymentLink(t);
      const payer = new Payer(t.url);
      const page = await payer.submit(await payer.open(pathOf(link.payment_url)), { name: 'Ali', ...card });
      expect(page.status).toBe(402);
      alerts.add(/<p class="alert" role="alert">([^<]*)<\/p>/.exec(page.html)?.[1] ?? '');
      for (const telling of ['insufficient', 'processing', 'test cards', 'Try again in'])
        expect(page.html.replace(/<details>[\s\S]*<\/details>/, '')).not.toContain(telling);
      const [payment] = await t.sql('payments').where({ payment_link_id: link._id });
      expect(payment).toMatchObject({ status_id: 3, failure_code: code });
    }
    expect([...alerts]).toEqual(['Your card was declined.']);
  });

  it('so does the activation page', async () => {
    const alerts = new Set<string>();
    for (const card of [DECLINED_CARD, NO_FUNDS_CARD, ERROR_CARD, OTHER_CARD]) {
      const { data } = await t.a.client.POST('/tokenizations/create-token', {
        body: { email: 'payer@example.com', title: 'Plan', description: 'Card for the plan' },
      });
      const payer = new Payer(t.url);
      const page = await payer.submit(await payer.open(new URL(data!.data.activation_url).pathname), { name: 'Ali', ...card });
      expect(page.status).toBe(402);
      alerts.add(/<p class="alert" role="alert">([^<]*)<\/p>/.exec(page.html)?.[1] ?? '');
    }
    expect([...alerts]).toEqual(['Your card was declined.']);
  });
});
