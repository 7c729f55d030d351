// Money after the payment, as a merchant and a payer live it: a payer pays a link in Chromium; the merchant
// finds the payment by its link, refunds half, then the rest, sees both webhooks and the totals, and
// exports the CSV; a payer saves a card in Chromium, the merchant charges it, and a card that declines
// when charged gives a 402 and payment.failed.
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type PaymentFailedEvent, type RefundEvent } from '../../client/webhooks.js';
import { launchBrowser } from '../support/browser.js';
import { raw } from '../support/service.js';
import { useWebhookService, WEBHOOK_SECRET } from '../support/webhook-service.js';
import { waitFor } from '../support/wait.js';

const SECRET = WEBHOOK_SECRET;
let browser: Browser;

const w = useWebhookService();
const { t, receiver } = w;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const events = () => receiver.requests.map((r) => verifyWebhook(r.raw, r.headers as Record<string, string>, SECRET));

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Name').fill('Aisyah Rahman');
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill('12/39');
  await page.getByLabel('CVC').fill('123');
}

describe('money after the payment, in a browser', () => {
  it('pay, find, refund half, refund the rest, webhooks, totals, CSV', async () => {
    const link = (
      await t.a.client.POST('/payment-links', { body: { email: 'aisyah@example.com', currency: 'MYR', amount: 5000, title: 'Order 88', reference: 'ORD-88' } })
    ).data!.data;
    const page = await browser.newPage();
    await page.goto(link.payment_url);
    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(/thank-you/), page.getByRole('button', { name: 'Pay' }).click()]);
    const paymentId = new URL(page.url()).searchParams.get('payment_id')!;
    await page.close();

    const found = await t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': link._id } } });
    expect(found.data!.data.data.map((p) => [p._id, p.status, p.amount])).toEqual([[paymentId, 'paid', 5000]]);

    const half = await t.a.client.POST('/payments/{payment_id}/refunds', {
      params: { path: { payment_id: paymentId } },
      body: { amount: 2500 },
      headers: { 'Idempotency-Key': 'j-1' },
    });
    expect(half.data!.data.status).toBe('succeeded');
    const rest = await t.a.client.POST('/payments/{payment_id}/refunds', {
      params: { path: { payment_id: paymentId } },
      headers: { 'Idempotency-Key': 'j-2' },
    });
    expect(rest.data!.data).toMatchObject({ status: 'succeeded', amount: 2500 });
    const payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(payment).toMatchObject({ status: 'refunded', amount_refunded: 5000, payment_status: 1 });

    const refunds = await waitFor('both refund webhooks', () => {
      const seen = events().filter((e): e is RefundEvent => e.event === 'refund.succeeded' && e.data.payment_id === paymentId);
      return seen.length === 2 && seen;
    });
    expect(refunds.map((e) => e.data.payment_amount_refunded).sort((a, b) => a - b)).toEqual([2500, 5000]);

    const csv = await raw(`${t.apiUrl}/payments?filter[reference]=ORD-88`, { key: t.a.key, headers: { accept: 'text/csv' } });
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.line, r.amount, r.refunded, r.net])).toEqual([
      ['payment', '50.00', '50.00', '0.00'],
      ['refund', '25.00', '', ''],
      ['refund', '25.00', '', ''],
    ]);
  }, 60_000);

  it('save a card, charge it; a card that declines when charged is a 402 and payment.failed', async () => {
    const charged: string[] = [];
    for (const [number, expected] of [
      ['4242 4242 4242 4242', 200],
      ['4000 0000 0000 0341', 402],
    ] as const) {
      const token = (await t.a.client.POST('/tokenizations/create-token', { body: { email: 'lim@example.com', title: 'Monthly plan', description: 'Plan' } }))
        .data!.data;
      const page = await browser.newPage();
      await page.goto(token.activation_url);
      await fillCard(page, number);
      await page.getByRole('button', { name: 'Save card' }).click();
      await page.getByRole('heading', { name: 'Card saved' }).waitFor();
      await page.close();
      const answer = await t.a.client.POST('/tokenizations/{token_id}/charges', {
        params: { path: { token_id: token._id } },
        body: { amount: 2990, currency: 'MYR' },
      });
      expect(answer.response.status).toBe(expected);
      const body = (answer.data ?? answer.error) as unknown as { data: { _id: string; status: string } };
      expect(body.data.status).toBe(expected === 200 ? 'paid' : 'failed');
      charged.push(body.data._id);
    }
    const failed = await waitFor('payment.failed of the declined charge', () =>
      events().find((e): e is PaymentFailedEvent => e.event === 'payment.failed' && e.data.payment_id === charged[1]),
    );
    expect(failed.data).toMatchObject({ failure_code: 'card_declined', payment_reference_model: 'tokenization', payment_amount: 2990 });
  }, 60_000);
});
