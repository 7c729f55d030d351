// /api/audit-events: what a write records (who, what, on which records, from where, how it ended),
// the filters and pages of the list, the business's own events only, and the retention sweep.
import { describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { recordAuditEvent } from '../../server/store/audit-events.js';
import { sweepAuditEvents } from '../../server/usecases/merchant/audit-log.js';
import { upsertMembership } from '../../server/store/users.js';
import { member } from '../support/members.js';
import { raw, useService } from '../support/service.js';

const t = useService();

async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return raw(`${t.url}/api${path}`, {
    key,
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

interface AuditEvent {
  _id: string;
  actor: { kind: string; id: string | null; label: string | null };
  action: string;
  target_ids: string[];
  outcome: string;
  status: number | null;
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  created_at: string;
}

interface AuditPage {
  data: AuditEvent[];
  total: number;
  current_page: number;
  last_page: number;
}

async function audit(query = '', key = t.a.key): Promise<AuditPage> {
  const response = await call(key, 'GET', `/audit-events${query}`);
  expect(response.status, response.text).toBe(200);
  return (response.body as { data: AuditPage }).data;
}

const link = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Audited' };

describe('what a write records', () => {
  it('the key, the operation, the path id and the created id, the client, the request id and the answer', async () => {
    const maker = await call(t.a.key, 'POST', '/api-keys', { name: 'Auditor', permissions: ['payment_links:write', 'payment_links:read', 'audit:read'] });
    const key = (maker.body as { data: { _id: string; secret: string } }).data;
    const created = await call(key.secret, 'POST', '/payment-links', link, { 'User-Agent': 'audit-test/1.0', 'X-Request-Id': 'req-audit-create-1' });
    expect(created.status).toBe(200);
    const linkId = (created.body as { data: { _id: string } }).data._id;
    const paused = await call(key.secret, 'POST', `/payment-links/${linkId}/pause`, undefined, { 'User-Agent': 'audit-test/1.0' });
    expect(paused.status).toBe(200);
    await call(key.secret, 'GET', `/payment-links/${linkId}`);

    const page = await audit(`?filter[actor_id]=${key._id}`);
    expect(page.data.map((event) => event.action)).toEqual(['pausePaymentLink', 'createPaymentLink']);
    const [pause, create] = page.data as [AuditEvent, AuditEvent];
    expect(create).toMatchObject({
      actor: { kind: 'api_key', id: key._id, label: 'Auditor' },
      action: 'createPaymentLink',
      target_ids: [linkId],
      outcome: 'succeeded',
      status: 200,
      user_agent: 'audit-test/1.0',
      request_id: 'req-audit-create-1',
    });
    expect(create.client_address).toMatch(/127\.0\.0\.1/);
    expect(pause).toMatchObject({ action: 'pausePaymentLink', target_ids: [linkId], outcome: 'succeeded' });
    // The key's making is recorded too, by the key that made it.
    const made = await audit(`?filter[action]=createApiKey&filter[target_id]=${key._id}`);
    expect(made.data).toHaveLength(1);
    expect(made.data[0]!.actor.id).not.toBe(key._id);
  });

  it('a refused write is recorded on its own, refused, with its status: a 422, a 403, a 404', async () => {
    const reader = (await call(t.a.key, 'POST', '/api-keys', { name: 'Refused reader', permissions: ['payments:read'] })).body as {
      data: { _id: string; secret: string };
    };
    expect((await call(reader.data.secret, 'POST', '/payment-links', link)).status).toBe(403);
    expect((await call(t.a.key, 'POST', '/payment-links', { ...link, amount: 'lots' })).status).toBe(422);
    const missing = newId();
    expect((await call(t.a.key, 'DELETE', `/payment-links/${missing}`)).status).toBe(404);

    const forbidden = await audit(`?filter[actor_id]=${reader.data._id}`);
    expect(forbidden.data).toMatchObject([{ action: 'createPaymentLink', outcome: 'refused', status: 403 }]);
    const notFound = await audit(`?filter[target_id]=${missing}`);
    expect(notFound.data).toMatchObject([{ action: 'deletePaymentLink', outcome: 'refused', status: 404, target_ids: [missing] }]);
    // No link was made by the 422.
    const invalid = (await audit('?filter[action]=createPaymentLink')).data.filter((event) => event.status === 422);
    expect(invalid.length).toBeGreaterThanOrEqual(1);
    expect(invalid[0]!.target_ids).toEqual([]);
  });

  it('the change and its event commit together: when the event cannot be written, the link is not made, and the failure is recorded alone', async () => {
    const count = async (table: string) => Number((await t.sql(table).where({ business_id: t.a.business.id }).count({ n: '*' }).first())!.n);
    const [links, events] = [await count('payment_links'), await count('audit_events')];
    const sqlite = t.service.db.dialect === 'sqlite';
    // The database refuses a successful create's event (and nothing else), as a full disk or a lost connection might.
    if (sqlite) {
      await t.sql.raw("create trigger refuse_audit before insert on audit_events when new.status = 200 begin select raise(abort, 'refused'); end");
    } else {
      await t.sql.raw(
        "create function refuse_audit() returns trigger language plpgsql as $$ begin if new.status = 200 then raise exception 'refused'; end if; return new; end $$",
      );
      await t.sql.raw('create trigger refuse_audit before insert on audit_events for each row execute function refuse_audit()');
    }
    try {
      const response = await call(t.a.key, 'POST', '/payment-links', { ...link, title: 'Never made' });
      expect(response.status).toBe(500);
    } finally {
      await t.sql.raw(sqlite ? 'drop trigger refuse_audit' : 'drop trigger refuse_audit on audit_events');
      if (!sqlite) await t.sql.raw('drop function refuse_audit');
    }
    expect(await count('payment_links')).toBe(links);
    expect(await count('audit_events')).toBe(events + 1);
    const last = (await audit('?filter[action]=createPaymentLink&per_page=1')).data[0]!;
    expect(last).toMatchObject({ outcome: 'failed', status: 500, target_ids: [] });
  });

  it('reads record nothing, and another business sees none of these events', async () => {
    const before = (await audit()).total;
    await call(t.a.key, 'GET', '/payment-links');
    await call(t.a.key, 'GET', '/audit-events');
    expect((await audit()).total).toBe(before);
    const theirs = await audit('', t.b.key);
    const ours = new Set((await audit('?per_page=100')).data.map((event) => event._id));
    expect(theirs.data.filter((event) => ours.has(event._id))).toEqual([]);
  });
});

describe('sign-ins', () => {
  it("a failed sign-in on a member's account is in each of their businesses' logs; one with an unknown e-mail in none", async () => {
    const { email, userId } = await member(t, t.a.business.id, 'finance');
    await upsertMembership(t.service.db, t.b.business.id, userId, 'viewer');
    const refused = await raw(`${t.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'audit-test' },
      body: JSON.stringify({ email, password: 'not-the-password-1' }),
    });
    expect(refused.status).toBe(401);
    const unknown = `nobody.${Date.now()}@example.com`;
    expect(
      (
        await raw(`${t.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: unknown, password: 'not-the-password-1' }),
        })
      ).status,
    ).toBe(401);
    for (const key of [t.a.key, t.b.key]) {
      const failures = (await audit('?filter%5Baction%5D=auth.login_failed', key)).data.filter((event) => event.target_ids.includes(userId));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ actor: { kind: 'anonymous', id: null, label: email }, outcome: 'failed', user_agent: 'audit-test' });
      const all = JSON.stringify((await audit('?per_page=100', key)).data);
      expect(all).not.toContain(unknown);
    }
  });
});

describe('the list', () => {
  it('filters by actor, action, target and date range together, and pages like every list', async () => {
    const tokenKey = (await call(t.a.key, 'POST', '/api-keys', { name: 'Pager', permissions: ['payment_links:write'] })).body as {
      data: { _id: string; secret: string };
    };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await call(tokenKey.data.secret, 'POST', '/payment-links', { ...link, title: `Page ${i}` });
      ids.push((created.body as { data: { _id: string } }).data._id);
    }
    await call(tokenKey.data.secret, 'DELETE', `/payment-links/${ids[0]}`);
    const actor = `filter[actor_id]=${tokenKey.data._id}`;
    const first = await audit(`?${actor}&per_page=2`);
    expect(first).toMatchObject({ total: 6, current_page: 1, last_page: 3 });
    const second = await audit(`?${actor}&per_page=2&page=2`);
    const oldestFirst = await audit(`?${actor}&sort=created_at&per_page=100`);
    expect([...first.data, ...second.data].map((event) => event._id)).toEqual(
      oldestFirst.data
        .reverse()
        .slice(0, 4)
        .map((event) => event._id),
    );
    expect((await audit(`?${actor}&filter[action]=deletePaymentLink`)).data.map((event) => event.target_ids)).toEqual([[ids[0]]]);
    expect((await audit(`?${actor}&filter[target_id]=${ids[0]}`)).data.map((event) => event.action)).toEqual(['deletePaymentLink', 'createPaymentLink']);
    expect((await audit(`?${actor}&filter[target_id]=${ids[0]}&filter[action]=createPaymentLink`)).total).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    expect((await audit(`?${actor}&filter[created_at_between]=${today},${today}`)).total).toBe(6);
    expect((await audit(`?${actor}&filter[created_at_between]=2020-01-01,2020-01-31`)).total).toBe(0);
    expect((await audit(`?${actor}&filter[created_at_between]=2020-01-01,2020-01-31&filter[target_id]=${ids[0]}`)).total).toBe(0);
  });

  it('refuses unknown filters and a reader without audit:read', async () => {
    const unknown = await call(t.a.key, 'GET', '/audit-events?filter[outcome]=refused');
    expect(unknown.status).toBe(422);
    const reader = (await call(t.a.key, 'POST', '/api-keys', { name: 'No audit', permissions: ['payments:read'] })).body as { data: { secret: string } };
    const refused = await call(reader.data.secret, 'GET', '/audit-events');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'This key or role lacks the audit:read permission.', required_permission: 'audit:read' });
  });
});

describe('retention', () => {
  it('the sweep deletes events older than the retention, with their targets, in batches, and keeps the rest', async () => {
    const business = t.b.business.id;
    const old = async (daysAgo: number) => {
      const id = await recordAuditEvent(t.service.db, {
        businessId: business,
        actor: { kind: 'operator' },
        action: 'retentionProbe',
        targetIds: [`target-${daysAgo}`],
        outcome: 'succeeded',
        clientAddress: null,
        userAgent: null,
        requestId: null,
      });
      const at = new Date(Date.now() - daysAgo * 86_400_000).toISOString();
      await t.sql('audit_events').where({ _id: id }).update({ created_at: at });
      await t.sql('audit_event_targets').where({ event_id: id }).update({ created_at: at });
      return id;
    };
    const gone = [await old(401), await old(500), await old(1000)];
    const kept = [await old(399), await old(1)];
    const deleted = await sweepAuditEvents({ db: t.service.db }, 400);
    expect(deleted).toBeGreaterThanOrEqual(3);
    expect(Number((await t.sql('audit_events').whereIn('_id', gone).count({ n: '*' }).first())!.n)).toBe(0);
    expect(Number((await t.sql('audit_event_targets').whereIn('event_id', gone).count({ n: '*' }).first())!.n)).toBe(0);
    expect(Number((await t.sql('audit_events').whereIn('_id', kept).count({ n: '*' }).first())!.n)).toBe(2);
    // A shorter retention reaches one of the kept ones, in a single batch.
    expect(await sweepAuditEvents({ db: t.service.db }, 300, new Date(), 1)).toBeGreaterThanOrEqual(1);
  });
});
