import { describe, expect, it } from 'vitest';
import { DECLINED_CARD, GOOD_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

const t = useService();

const token = (body: Record<string, unknown> = {}) => create.token(t.a, body);

const pathOf = (url: string) => new URL(url).pathname;
const readToken = (id: string, client = t.a.client) => client.GET('/tokenizations/{token_id}', { params: { path: { token_id: id } } });

describe('token activation page', () => {
  it('saves a card: the token becomes active with brand, last four and expiry, never the number', async () => {
    const created = await token();
    expect(created).toMatchObject({ status: 'pending', card: null });
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(created.activation_url));
    expect(form.status).toBe(200);
    for (const text of ['Monthly plan', 'Card for the plan', 'payer@example.com', '<button type="submit">Save card</button>'])
      expect(form.html).toContain(text);
    for (const label of ['Name', 'Card number', 'Expiry (MM/YY)', 'CVC']) expect(form.html).toContain(`>${label}`);

    const saved = await payer.submit(form, { name: 'Aisyah', ...GOOD_CARD });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(created.activation_url);
    const after = await payer.get(pathOf(created.activation_url));
    expect(after.html).toContain('VISA ending in 4242');

    const read = await readToken(created._id);
    expect(read.data?.data).toMatchObject({ status: 'active', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2039 } });
    expect(JSON.stringify(read.data)).not.toContain('4242424242424242');
    const row = await t.sql('tokens').where({ _id: created._id }).first();
    expect(Object.values(row).join(' ')).not.toContain('4242424242424242');
  });

  it('redirects to the merchant with token_id and token_status', async () => {
    const created = await token({ redirect_url: 'https://merchant.example.com/cards' });
    const payer = new Payer(t.url);
    const saved = await payer.submit(await payer.open(pathOf(created.activation_url)), { name: 'Tan', ...GOOD_CARD });
    const location = new URL(saved.location!);
    expect(location.origin + location.pathname).toBe('https://merchant.example.com/cards');
    expect(location.searchParams.get('token_id')).toBe(created._id);
    expect(location.searchParams.get('token_status')).toBe('active');
  });

  it('shows a declined card and keeps the token pending', async () => {
    const created = await token();
    const payer = new Payer(t.url);
    const declined = await payer.submit(await payer.open(pathOf(created.activation_url)), { name: 'Ali', ...DECLINED_CARD });
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('Your card was declined.');
    expect((await readToken(created._id)).data?.data.status).toBe('pending');
  });

  it('answers unknown tokens with 404 and refuses forged submissions', async () => {
    const payer = new Payer(t.url);
    expect((await payer.get(`/tokenization/activation/${'0'.repeat(64)}`)).status).toBe(404);
    expect((await payer.get('/tokenization/activation/short')).status).toBe(404);
    const created = await token();
    const form = await new Payer(t.url).open(pathOf(created.activation_url));
    expect((await new Payer(t.url).submit(form, { name: 'Eve', ...GOOD_CARD })).status).toBe(403);
    expect((await readToken(created._id)).data?.data.status).toBe('pending');
  });

  it('GET /tokenizations/{id} is the business own: another business gets 404', async () => {
    const created = await token();
    expect((await readToken(created._id, t.b.client)).response.status).toBe(404);
    expect((await readToken('nonsense')).response.status).toBe(404);
  });
});
