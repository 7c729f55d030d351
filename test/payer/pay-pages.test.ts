// The hosted pay pages over HTTP: what a payer sees and what each submission records.
import { describe, expect, it } from 'vitest';
import { listPaymentsForLink } from '../../server/store/payments.js';
import { DECLINED_CARD, ERROR_CARD, GOOD_CARD, NO_FUNDS_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

const t = useService();

const paymentLink = (body: Record<string, unknown> = {}) => create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7', ...body });
const openLink = (body: Record<string, unknown> = {}) => create.openLink(t.a, { minimum_amount: '10.00', ...body });

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
const payments = (where: { payment_link_id: string }) => listPaymentsForLink(t.service.db, where.payment_link_id);

describe('payment link page', () => {
  it('shows the title, description, amount, currency and the masked payer e-mail with labelled fields', async () => {
    const link = await paymentLink({ description: 'Design work' });
    const page = await new Payer(t.url).open(pathOf(link.payment_url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    for (const text of ['Invoice 7', 'Design work', 'RM 12.50', 'p***@example.com']) expect(page.html).toContain(text);
    expect(page.html).not.toContain('payer@example.com');
    for (const label of ['Name', 'Email', 'Card number', 'Expiry (MM/YY)', 'CVC'])
      expect(page.html).toMatch(new RegExp(`<label for="\\w+">${label.replace(/[()]/g, '\\$&')}`));
    expect(page.html).toContain('<button type="submit">Pay</button>');
    expect(page.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(page.attemptId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('takes a payment, marks the link paid and redirects to the thank-you page with the payment', async () => {
    const link = await paymentLink();
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(link.payment_url));
    const paid = await payer.submit(form, { name: 'Aisyah', ...GOOD_CARD });
    expect(paid.status).toBe(303);
    const location = new URL(paid.location!);
    expect(location.origin + location.pathname).toBe(`${t.service.publicUrl}/payment/thank-you`);
    expect(location.searchParams.get('payment_link_id')).toBe(link._id);
    expect(location.searchParams.get('payment_status')).toBe('1');
    const [payment] = await payments({ payment_link_id: link._id });
    expect(payment).toMatchObject({
      _id: location.searchParams.get('payment_id'),
      status_id: 1,
      amount: 1250,
      currency: 'MYR',
      payer_name: 'Aisyah',
      payer_email: 'payer@example.com',
      card_brand: 'visa',
      card_last4: '4242',
    });

    const read = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
    expect(read.data?.data).toMatchObject({ status: 'Paid', paid: true });
    const thanks = await payer.get(pathOf(paid.location!));
    expect(thanks.status).toBe(200);
    expect(thanks.html).toContain('RM 12.50');
    expect(thanks.html).toContain('ending in 4242');
  });

  it("thanks the payer with the merchant's reference, where the receipt went, and a title naming the business once", async () => {
    await t.a.client.PATCH('/business', { body: { display_name: 'Kedai Kopi Ah Seng' } });
    const link = await paymentLink({ reference: 'INV-2026-0142', email: 'nurul@example.com' });
    const payer = new Payer(t.url);
    const paid = await payer.submit(await payer.open(pathOf(link.payment_url)), { name: 'Nurul', ...GOOD_CARD });
    const [payment] = await payments({ payment_link_id: link._id });
    const thanks = await payer.get(pathOf(paid.location!));
    expect(thanks.html).toContain('Reference INV-2026-0142. You can close this page.');
    const main = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));
    expect(main(thanks.html)).not.toContain(payment!._id);
    expect(thanks.html).toContain('A receipt has been e-mailed to nurul@example.com.');
    expect(thanks.html).toContain('<title>Thank you – Kedai Kopi Ah Seng</title>');

    // Without a reference of the merchant's, no id stands in for one.
    const plain = await paymentLink();
    const again = new Payer(t.url);
    const paidPlain = await again.submit(await again.open(pathOf(plain.payment_url)), { name: 'Ali', ...GOOD_CARD });
    const [plainPayment] = await payments({ payment_link_id: plain._id });
    const plainThanks = await again.get(pathOf(paidPlain.location!));
    expect(main(plainThanks.html)).not.toContain(plainPayment!._id);
    expect(main(plainThanks.html)).not.toContain('Reference');
    expect(main(plainThanks.html)).toContain('You can close this page.');
    // No website in the profile: no way back is made up.
    expect(main(plainThanks.html)).not.toContain('Back to');
  });

  it("leads the payer back to the business's website, when its profile has one", async () => {
    await t.a.client.PATCH('/business', { body: { display_name: 'Kedai Kopi Ah Seng', website_url: 'https://ahseng.example.com/menu?from=pay' } });
    try {
      const link = await paymentLink();
      const payer = new Payer(t.url);
      const paid = await payer.submit(await payer.open(pathOf(link.payment_url)), { name: 'Nurul', ...GOOD_CARD });
      const thanks = await payer.get(pathOf(paid.location!));
      expect(thanks.html).toContain('<a href="https://ahseng.example.com/menu?from=pay">Back to Kedai Kopi Ah Seng</a>');
    } finally {
      await t.a.client.PATCH('/business', { body: { website_url: null } });
    }
  });

  it('signs the thank-you redirect: the same ids with a missing, guessed or altered signature show no payment', async () => {
    const link = await paymentLink();
    const payer = new Payer(t.url);
    const paid = await payer.submit(await payer.open(pathOf(link.payment_url)), { name: 'Aisyah', ...GOOD_CARD });
    const location = new URL(paid.location!);
    const signature = location.searchParams.get('signature')!;
    expect(signature).toMatch(/^[\w-]{43}$/);
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    const variants: Record<string, (query: URLSearchParams) => void> = {
      'no signature': (query) => query.delete('signature'),
      'an empty signature': (query) => query.set('signature', ''),
      'a guessed signature': (query) => query.set('signature', 'A'.repeat(43)),
      'one character changed': (query) => query.set('signature', flipped),
      'a truncated signature': (query) => query.set('signature', signature.slice(0, 42)),
      'the signature twice': (query) => query.append('signature', signature),
      'another status': (query) => query.set('payment_status', '3'),
    };
    for (const [name, change] of Object.entries(variants)) {
      const query = new URLSearchParams(location.search);
      change(query);
      const page = await new Payer(t.url).get(`${location.pathname}?${query}`);
      expect(page.status, name).toBe(200);
      expect(page.html, name).toContain('Thank you');
      for (const detail of ['Payment received', 'MYR', '12.50', '4242', location.searchParams.get('payment_id')!])
        expect(page.html, `${name}: ${detail}`).not.toContain(detail);
    }
    const real = await new Payer(t.url).get(location.pathname + location.search);
    expect(real.html).toContain('Payment received: RM 12.50 by VISA ending in 4242.');
  });

  it('redirects to the merchant redirect_url, keeping its own query parameters', async () => {
    const link = await paymentLink({ redirect_url: 'https://merchant.example.com/done?order=7' });
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(link.payment_url));
    expect(form.headers.get('content-security-policy')).toContain("form-action 'self' https://merchant.example.com");
    const paid = await payer.submit(form, { name: 'Tan', ...GOOD_CARD });
    const location = new URL(paid.location!);
    expect(location.origin + location.pathname).toBe('https://merchant.example.com/done');
    expect(location.searchParams.get('order')).toBe('7');
    expect(location.searchParams.get('payment_link_id')).toBe(link._id);
    expect(location.searchParams.get('payment_status')).toBe('1');
    // The signature is for our own thank-you page; the merchant's page has no use for it.
    expect(location.searchParams.has('signature')).toBe(false);
  });

  it.each([
    ['declined', DECLINED_CARD, 'card_declined'],
    ['insufficient funds', NO_FUNDS_CARD, 'insufficient_funds'],
    ['processing error', ERROR_CARD, 'processing_error'],
  ])('shows a %s card on the page, records a failed payment and leaves the link payable', async (_name, card, code) => {
    const link = await paymentLink();
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(link.payment_url));
    const declined = await payer.submit(form, { name: 'Ali', ...card });
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('<p class="alert" role="alert">Your card was declined.</p>');
    const [payment] = await payments({ payment_link_id: link._id });
    expect(payment).toMatchObject({ status_id: 3, failure_code: code, card_last4: card.card_number.slice(-4) });
    const retry = await payer.open(pathOf(link.payment_url));
    expect(retry.attemptId).not.toBe(form.attemptId);
    expect((await payer.submit(retry, { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
  });

  it('answers a second submit of the same attempt like the first and charges once', async () => {
    const link = await paymentLink();
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(link.payment_url));
    const [first, second] = await Promise.all([payer.submit(form, { name: 'Ali', ...GOOD_CARD }), payer.submit(form, { name: 'Ali', ...GOOD_CARD })]);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.location).toBe(first.location);
    const third = await payer.submit(form, { name: 'Ali', ...GOOD_CARD });
    expect(third.location).toBe(first.location);
    expect(await payments({ payment_link_id: link._id })).toHaveLength(1);
  });

  it('refuses a submission without the CSRF cookie or token, charging nothing', async () => {
    const link = await paymentLink();
    const form = await new Payer(t.url).open(pathOf(link.payment_url));
    const stranger = new Payer(t.url);
    const forged = await stranger.submit(form, { name: 'Eve', ...GOOD_CARD });
    expect(forged.status).toBe(403);
    const payer = new Payer(t.url);
    const own = await payer.open(pathOf(link.payment_url));
    expect((await payer.submit({ ...own, csrf: 'x'.repeat(43) }, { name: 'Eve', ...GOOD_CARD })).status).toBe(403);
    expect(await payments({ payment_link_id: link._id })).toHaveLength(0);
  });

  it('reports invalid card fields with 422 and never echoes the card number or CVC', async () => {
    const link = await paymentLink();
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(link.payment_url));
    const invalid = await payer.submit(form, { name: '', card_number: '4242 4242 4242 4241', expiry: '01/20', cvc: '98' });
    expect(invalid.status).toBe(422);
    expect(invalid.html).toContain('Enter your name.');
    expect(invalid.html).toContain('The card number is not valid.');
    expect(invalid.html).toContain('The card has expired.');
    expect(invalid.html).toContain('The CVC must be 3 digits.');
    expect(invalid.html).not.toContain('4242 4242 4242 4241');
    expect(await payments({ payment_link_id: link._id })).toHaveLength(0);
  });

  it('escapes what the merchant wrote, so a title cannot become markup', async () => {
    const link = await paymentLink({ title: '<script>alert(1)</script>', description: '"><img src=x onerror=alert(1)>' });
    const page = await new Payer(t.url).open(pathOf(link.payment_url));
    expect(page.html).not.toContain('<script>alert(1)</script>');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('sends security headers on every page', async () => {
    const link = await paymentLink();
    const page = await new Payer(t.url).get(pathOf(link.payment_url));
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('answers unknown, deleted and paid links with a clear page and the right status', async () => {
    const payer = new Payer(t.url);
    expect((await payer.get('/payment/pay?id=000000000000000000000000')).status).toBe(404);
    expect((await payer.get('/payment/pay?id=nonsense')).status).toBe(404);
    expect((await payer.get('/payment/pay')).status).toBe(404);

    const deleted = await paymentLink();
    await t.a.client.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: deleted._id } } });
    const gone = await payer.get(pathOf(deleted.payment_url));
    expect(gone.status).toBe(410);
    expect(gone.html).toContain('no longer available');

    const paid = await paymentLink();
    const form = await payer.open(pathOf(paid.payment_url));
    await payer.submit(form, { name: 'Ali', ...GOOD_CARD });
    const again = await payer.get(pathOf(paid.payment_url));
    expect(again.status).toBe(409);
    expect(again.html).toContain('already been paid');
    for (const page of [gone, again]) expect(page.html).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('open link page', () => {
  it('takes payments of any amount from the minimum and reports them as collections', async () => {
    const link = await openLink();
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(link.payment_url));
    expect(form.status).toBe(200);
    expect(form.html).toMatch(/<label for="amount">Amount/);
    expect(form.html).toContain('RM 10.00');

    const tooSmall = await payer.submit(form, { amount: '9.99', name: 'Ali', email: 'ali@example.com', ...GOOD_CARD });
    expect(tooSmall.status).toBe(422);
    expect(tooSmall.html).toContain('The amount must be at least RM 10.00.');

    for (const [amount, name] of [
      ['25.50', 'Ali'],
      ['100', 'Siti'],
    ]) {
      const next = await payer.open(pathOf(link.payment_url));
      const paid = await payer.submit(next, { amount: amount!, name: name!, email: `${name!.toLowerCase()}@example.com`, ...GOOD_CARD });
      expect(paid.status).toBe(303);
      expect(new URL(paid.location!).searchParams.get('payment_link_id')).toBe(link._id);
    }
    const total = await t.a.client.GET('/open-payment-links/{open_payment_link_id}/total-collection', {
      params: { path: { open_payment_link_id: link._id }, query: { 'filter[limit]': 10 } },
    });
    expect(total.data?.data).toMatchObject({ total_amount: 125.5, total_count: 2 });
    expect(total.data?.data.collections?.map((c) => c.payer_name)).toEqual(['Siti', 'Ali']);
    const top = await t.a.client.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params: { path: { open_payment_link_id: link._id } } });
    expect(top.data?.data.collections.map((c) => [c.amount, c.payer_email])).toEqual([
      [100, 'siti@example.com'],
      [25.5, 'ali@example.com'],
    ]);
  });

  it('requires a valid e-mail and an amount with at most two decimals', async () => {
    const link = await openLink();
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(link.payment_url));
    const invalid = await payer.submit(form, { amount: '12.345', name: 'Ali', email: 'not-an-email', ...GOOD_CARD });
    expect(invalid.status).toBe(422);
    expect(invalid.html).toContain('Enter the amount with at most two decimals.');
    expect(invalid.html).toContain('Enter a valid email address.');
  });

  it('tells payers a deleted link is no longer available', async () => {
    const link = await openLink();
    await t.a.client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
    expect((await new Payer(t.url).get(pathOf(link.payment_url))).status).toBe(410);
  });
});
