// filter[created_at_between] over the widest days the contract's pattern lets through: a year 0000 (ISO
// 8601 has it, PostgreSQL's timestamps do not) or 9999 reads like any other range on every list and report.
import { beforeAll, describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

let openLinkId: string;
const t = useService();
beforeAll(async () => {
  await t.a.client.POST('/payment-links', { body: { email: 'p@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' } });
  openLinkId = (await create.openLink(t.a, { minimum_amount: '10.00' }))._id;
});

const get = async (path: string, range: string) => {
  const response = await fetch(`${t.url}/api${path}?filter%5Bcreated_at_between%5D=${range}`, {
    headers: { authorization: `Bearer ${t.a.key}`, accept: 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as { data: { total?: number } } };
};

describe('filter[created_at_between] at the ends of the calendar', () => {
  const paths = () => ['/payment-links', '/open-payment-links', '/payments', '/events', `/open-payment-links/${openLinkId}/total-collection`];

  it('from 0000-01-01 reads everything since, on every list and report', async () => {
    for (const path of paths()) expect((await get(path, '0000-01-01,2999-12-31')).status, path).toBe(200);
    expect((await get('/payment-links', '0000-01-01,2999-12-31')).body.data.total).toBe(1);
    expect((await get('/open-payment-links', '0000-01-01,2999-12-31')).body.data.total).toBe(1);
  });

  it('wholly in the year 0000 or 9999 reads nothing', async () => {
    for (const range of ['0000-01-01,0000-12-31', '9999-12-31,9999-12-31']) {
      for (const path of paths()) expect((await get(path, range)).status, `${path} ${range}`).toBe(200);
      expect((await get('/payment-links', range)).body.data.total).toBe(0);
    }
  });
});
