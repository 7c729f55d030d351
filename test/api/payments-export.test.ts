// The reconciliation export: GET /api/payments with Accept: text/csv streams every matching payment,
// each followed by its refunds, with amounts a bookkeeper can add up.
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECLINED_CARD, GOOD_CARD, submitPage } from '../support/payer.js';
import { raw, useService } from '../support/service.js';

let linkId: string;
let paidId: string;

const t = useService();
beforeAll(async () => {
  const { data } = await t.a.client.POST('/payment-links', {
    body: { email: 'payer@example.com', currency: 'MYR', amount: 5000, title: 'Order 12', reference: 'ORD-12' },
  });
  linkId = data!.data._id;
  expect((await submitPage(t.url, data!.data.payment_url, { name: '=HYPERLINK("http://evil.example")', ...DECLINED_CARD })).status).toBe(402);
  paidId = (await submitPage(t.url, data!.data.payment_url, { name: 'Aisyah, "Ash" Rahman', ...GOOD_CARD })).paymentId!;
  await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paidId } }, body: { amount: 1250, reason: 'Late delivery' } });
  // Another business's payment, which must not appear.
  const other = await t.b.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 900, title: 'Theirs' } });
  await submitPage(t.url, other.data!.data.payment_url, { name: 'Ben', ...GOOD_CARD });
}, 60_000);

async function exportCsv(query = '', key = t.a.key) {
  const answer = await raw(`${t.apiUrl}/payments${query}`, { key, headers: { accept: 'text/csv' } });
  return { ...answer, rows: parse(answer.text, { columns: true }) as Record<string, string>[] };
}

describe('GET /api/payments as text/csv', () => {
  it('lists each payment, then its refunds, oldest first, with amounts in units and what was kept', async () => {
    const { status, contentType, headers, rows, text } = await exportCsv();
    expect(status).toBe(200);
    expect(contentType).toBe('text/csv; charset=utf-8');
    expect(headers.get('content-disposition')).toBe('attachment; filename="payments.csv"');
    expect(text.split('\r\n')[0]).toBe(
      'line,id,payment_id,created_at,updated_at,status,payment_status,method,provider,provider_reference,payment_link_id,open_payment_link_id,tokenization_id,reference,description,payer_name,payer_email,currency,amount,refunded,net,card_brand,card_last4,failure_code,failure_message,reason,fee,net_after_fee,balance_transaction_id',
    );
    expect(rows.map((row) => [row.line, row.status, row.amount, row.refunded, row.net])).toEqual([
      ['payment', 'failed', '50.00', '0.00', '0.00'],
      ['payment', 'partially_refunded', '50.00', '12.50', '37.50'],
      ['refund', 'succeeded', '12.50', '', ''],
    ]);
    expect(rows[1]).toMatchObject({
      id: paidId,
      payment_id: paidId,
      payment_link_id: linkId,
      reference: 'ORD-12',
      description: 'Order 12',
      payer_name: 'Aisyah, "Ash" Rahman',
      currency: 'MYR',
      payment_status: '1',
    });
    // A refund line carries its payment's reference, and its own reason in the last column.
    expect(rows[2]).toMatchObject({ payment_id: paidId, reference: 'ORD-12', reason: 'Late delivery' });
    expect(rows[1]!.reason).toBe('');
    // The acquirer's fee (the sandbox's 2.5%) and what the payment added to the balance; nothing on a failed one.
    expect(rows[1]).toMatchObject({ fee: '1.25', net_after_fee: '48.75' });
    expect(rows[1]!.balance_transaction_id).toMatch(/^[0-9a-f]{24}$/);
    expect(rows[0]).toMatchObject({ fee: '', net_after_fee: '', balance_transaction_id: '' });
    // A payer's text that a spreadsheet would run as a formula is made inert.
    expect(rows[0]!.payer_name).toBe(`'=HYPERLINK("http://evil.example")`);
    expect(rows[0]!.failure_code).toBe('card_declined');
  });

  it('takes the same filters as the JSON list, and ignores paging', async () => {
    expect((await exportCsv('?filter[status]=failed')).rows.map((row) => row.line)).toEqual(['payment']);
    expect((await exportCsv('?filter[status]=partially_refunded&per_page=1&page=3')).rows.map((row) => row.line)).toEqual(['payment', 'refund']);
    expect((await exportCsv('?filter[payment_link_id]=ffffffffffffffffffffffff')).rows).toEqual([]);
    // The declined card's attempt alone; the good card's payment and its refund, not business B's with the same card.
    expect((await exportCsv('?filter[card_last4]=0002')).rows.map((row) => [row.line, row.card_last4, row.status])).toEqual([['payment', '0002', 'failed']]);
    expect((await exportCsv('?filter[card_last4]=4242')).rows.map((row) => [row.line, row.payment_id])).toEqual([
      ['payment', paidId],
      ['refund', paidId],
    ]);
    const refused = await raw(`${t.apiUrl}/payments?filter[status]=settled`, { key: t.a.key, headers: { accept: 'text/csv' } });
    expect(refused.status).toBe(422);
    expect(refused.contentType).toMatch(/^application\/json/);
  });

  it("holds only the business's own payments, and JSON stays the default", async () => {
    const theirs = await exportCsv('', t.b.key);
    expect(theirs.rows).toHaveLength(1);
    expect(theirs.rows[0]!.payer_name).toBe('Ben');
    const json = await raw(`${t.apiUrl}/payments`, { key: t.a.key, headers: { accept: 'application/json, text/csv' } });
    expect(json.contentType).toMatch(/^application\/json/);
    const typed = await t.a.client.GET('/payments', { headers: { accept: 'text/csv' }, parseAs: 'text' });
    expect(typed.response.status).toBe(200);
    expect(String(typed.data).split('\r\n')).toHaveLength(5);
  });

  it('pages through more payments than one batch reads, each once, in order', async () => {
    const { eachPaymentBatch } = await import('../../server/store/payment-export.js');
    const seen: string[] = [];
    for await (const batch of eachPaymentBatch(t.service.db, t.a.business.id, {}, 1)) seen.push(...batch.map((p) => p._id));
    const listed = (await t.a.client.GET('/payments', { params: { query: { sort: 'created_at' } } })).data!.data.data.map((p) => p._id);
    expect(seen).toEqual(listed);
  });
});
