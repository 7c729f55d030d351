import { describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';

const t = useService();

describe('smoke', () => {
  it('creates and reads a payment link through the client', async () => {
    const created = await t.a.client.POST('/payment-links', { body: { email: 'p@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' } });
    expect(created.response.status).toBe(200);
    const id = created.data!.data._id;
    const read = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
    expect(read.data?.data.amount).toBe(1000);
    const other = await t.b.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
    expect(other.response.status).toBe(404);
    const list = await t.a.client.GET('/payment-links', { params: { query: { per_page: 1, 'filter[status]': 'Active' } } });
    expect(list.data?.data.total).toBe(1);
    const invalid = await t.a.client.POST('/payment-links', { body: {} as never });
    expect(invalid.response.status).toBe(422);
  });
});
