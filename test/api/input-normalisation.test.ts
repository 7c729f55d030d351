// Laravel's default middleware, which the seed's clients expect (docs/compatibility.md, Input normalisation):
// every string of a body is trimmed and an empty one becomes null before validation.
import { describe, expect, it } from 'vitest';
import { raw, useService } from '../support/service.js';

const t = useService();

const post = (path: string, body: unknown) =>
  raw(`${t.apiUrl}${path}`, { method: 'POST', key: t.a.key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const VALID = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1001' };

describe('trimmed strings, empty ones null', () => {
  it.each([
    ['/payment-links', { ...VALID, title: '   ' }, { title: ['The title field is required.'] }],
    ['/payment-links', { ...VALID, title: '\t\n' }, { title: ['The title field is required.'] }],
    ['/payment-links', { ...VALID, title: '' }, { title: ['The title field is required.'] }],
    ['/payment-links', { ...VALID, email: ' ', currency: '' }, { currency: ['The currency field is required.'], email: ['The email field is required.'] }],
    ['/open-payment-links', { currency: 'MYR', minimum_amount: '  ', title: 'Donations' }, { minimum_amount: ['The minimum amount field is required.'] }],
    [
      '/tokenizations/create-token',
      { email: 'payer@example.com', title: 'Card', description: '    ' },
      { description: ['The description field is required.'] },
    ],
  ])('POST %s with a blank required field is a 422 "field is required"', async (path, body, errors) => {
    const response = await post(path, body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ message: 'The given data was invalid.', errors });
  });

  it('stores trimmed text, and blank optional fields as null', async () => {
    const response = await post('/payment-links', {
      email: '  payer@example.com ',
      currency: ' MYR',
      amount: ' 1500 ',
      title: '  Invoice 1001\t',
      description: '',
      reference: '   ',
      reference_2: ' R-2 ',
      redirect_url: ' https://merchant.example.com/thanks ',
    });
    expect(response.status, response.text).toBe(200);
    const data = (response.body as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({
      email: 'payer@example.com',
      currency: 'MYR',
      amount: 1500,
      title: 'Invoice 1001',
      description: null,
      reference: null,
      reference_2: 'R-2',
      redirect_url: 'https://merchant.example.com/thanks',
    });
    const row = await t.sql('payment_links').where({ _id: data._id }).first();
    expect(row).toMatchObject({ title: 'Invoice 1001', description: null, reference: null, reference_2: 'R-2' });
  });

  it('keeps spaces inside a text, and a NUL anywhere is still refused', async () => {
    const inside = await post('/payment-links', { ...VALID, title: 'Invoice  1001' });
    expect((inside.body as { data: { title: string } }).data.title).toBe('Invoice  1001');
    const nul = await post('/payment-links', { ...VALID, title: 'Invoice\u0000' });
    expect(nul.status).toBe(422);
    expect(nul.body).toEqual({ message: 'The given data was invalid.', errors: { title: ['The title format is invalid.'] } });
  });
});
