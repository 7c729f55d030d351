// A list's total costs the same however many records match: a filter whose matches are not kept
// as counters is counted up to 10,001 (one past the 10,000 records a list reaches), and the
// paginator says when its total is only a lower bound. The events list reads one row per event
// (kept by the outbox's triggers, as is its count), so its total and its delivery filter follow the outbox.
import { beforeAll, describe, expect, it } from 'vitest';
import { plantEvents, plantPayments } from '../support/bulk.js';
import { useService } from '../support/service.js';

const MANY = 10_050;
const t = useService();

beforeAll(async () => {
  await plantPayments(t.sql, t.a.business.id, MANY, { reference: 'MANY' });
  await plantPayments(t.sql, t.a.business.id, 20, { prefix: 'e', reference: 'FEW' });
  await plantEvents(t.sql, t.a.business.id, MANY);
}, 120_000);

describe('list totals are bounded', () => {
  it('counts a filter matching more than a list reaches up to 10,001, and says the total is a lower bound', async () => {
    const { data, response } = await t.a.client.GET('/payments', { params: { query: { 'filter[reference]': 'MANY', per_page: 100 } } });
    expect(response.status).toBe(200);
    expect(data!.data.total).toBe(10_001);
    expect(data!.data.total_is_lower_bound).toBe(true);
    expect(data!.data.last_page).toBe(101);
    expect(data!.data.data).toHaveLength(100);
    // The last page a list reaches is still there; past it, the 422 that says how to narrow the list.
    const last = await t.a.client.GET('/payments', { params: { query: { 'filter[reference]': 'MANY', per_page: 100, page: 100 } } });
    expect(last.data!.data.data).toHaveLength(100);
    const past = await t.a.client.GET('/payments', { params: { query: { 'filter[reference]': 'MANY', per_page: 100, page: 101 } } });
    expect(past.response.status).toBe(422);
  });

  it('gives an exact total, without the flag, when fewer match', async () => {
    const { data } = await t.a.client.GET('/payments', { params: { query: { 'filter[reference]': 'FEW' } } });
    expect(data!.data.total).toBe(20);
    expect(data!.data).not.toHaveProperty('total_is_lower_bound');
    // A combination of a filter most payments match with one that matches none.
    const none = await t.a.client.GET('/payments', { params: { query: { 'filter[status]': 'paid', 'filter[email]': 'nobody@x.com' } } });
    expect(none.data!.data.total).toBe(0);
    expect(none.data!.data.data).toEqual([]);
  });

  it('keeps the count of events, counts a filter of them up to 10,001, from one row per event that follows its deliveries', async () => {
    const all = await t.a.client.GET('/events', { params: { query: { per_page: 5 } } });
    expect(all.data!.data.total).toBe(MANY);
    expect(all.data!.data).not.toHaveProperty('total_is_lower_bound');
    expect(all.data!.data.data[0]!.id).toBe(`evt_bulk_${t.a.business.id}_${MANY - 1}`);
    const typed = await t.a.client.GET('/events', { params: { query: { 'filter[type]': 'payment.created' } } });
    expect(typed.data!.data.total).toBe(10_001);
    expect(typed.data!.data.total_is_lower_bound).toBe(true);
    expect((await t.b.client.GET('/events')).data!.data.total).toBe(0);

    // Delivered everywhere, then given up: the event moves between the delivery filters.
    const eventId = `evt_bulk_${t.a.business.id}_7`;
    const delivered = () => t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': true } } });
    const failed = () => t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': false } } });
    expect((await delivered()).data!.data.total).toBe(0);
    await t.sql('outbox').where({ event_id: eventId }).update({ status: 'delivered', delivered_at: '2025-01-02T00:00:00.000000Z', attempts: 1 });
    expect((await delivered()).data!.data.data.map((e) => e.id)).toEqual([eventId]);
    await t.sql('outbox').where({ event_id: eventId }).update({ status: 'dead', last_error: 'HTTP 500' });
    expect((await delivered()).data!.data.total).toBe(0);
    expect((await failed()).data!.data.data.map((e) => [e.id, e.status])).toEqual([[eventId, 'dead']]);
    // Retention prunes the entry: the event goes with it.
    await t.sql('outbox').where({ event_id: eventId }).delete();
    expect((await failed()).data!.data.total).toBe(0);
    expect((await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: eventId } } })).response.status).toBe(404);
  });
});
