// The audit log's promise, walked over every write operation of openapi.yaml that a caller can make
// (the members' own and the team's included): each request by a known caller, allowed or refused,
// leaves exactly one event. A refusal is recorded under the operation's id with the reason the caller
// was told; an operation whose use case records its own events (`x-audit: use-case`) leaves, when it
// succeeds, the event named for what it did. And the events say what a change changed.
import { beforeAll, describe, expect, it } from 'vitest';
import { paymentHandlers } from '../../server/handlers/payments.js';
import { tokenizationHandlers } from '../../server/handlers/tokenizations.js';
import { loadContract, type ContractOperation } from '../../server/http/contract.js';
import { apiPath, loadSpec, type SpecOperation } from '../security/spec.js';
import { api, oneOfEach } from '../security/fixture.js';
import { call, member, signIn, type Session } from '../support/members.js';
import { useService } from '../support/service.js';

const t = useService();
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Operations that ask an acquirer record their event with their first phase's answer (202, pending), as property/audit.test.ts says. */
const PHASED = new Set(
  Object.entries({ ...paymentHandlers, ...tokenizationHandlers })
    .filter(([, handler]) => 'atomicPhases' in handler && handler.atomicPhases)
    .map(([operationId]) => operationId),
);
let operations: SpecOperation[];
let contract: Map<string, ContractOperation>;
const ids: Record<string, string> = {};
let restricted: string;

beforeAll(async () => {
  operations = (await loadSpec({ members: true })).operations.filter((operation) => WRITES.has(operation.method));
  contract = new Map((await loadContract()).operations.map((operation) => [operation.operationId, operation]));
  Object.assign(ids, await oneOfEach(t));
  const made = await api(t, t.a.key, 'POST', '/api/api-keys', { name: 'Reader', permissions: ['payments:read'] });
  restricted = (made.body as { data: { secret: string } }).data.secret;
});

interface Recorded {
  action: string;
  outcome: string;
  status: number | null;
  reason: string | null;
  details: string | null;
}

async function eventCount(): Promise<number> {
  const row = await t.sql('audit_events').where({ business_id: t.a.business.id }).count({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

async function latestEvents(count: number): Promise<Recorded[]> {
  return t
    .sql('audit_events')
    .where({ business_id: t.a.business.id })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: '_id', order: 'desc' },
    ])
    .limit(Math.max(count, 1))
    .select('action', 'outcome', 'status', 'reason', 'details');
}

/** The path's records, made afresh where the request may use them up (a member removed, an invitation revoked). */
async function pathValues(operation: SpecOperation, owner: Session): Promise<Record<string, string>> {
  const values: Record<string, string> = { ...ids, session_id: owner.me.session_id as string };
  if (operation.pathParams.includes('user_id')) values.user_id = (await member(t, t.a.business.id, 'viewer')).userId;
  if (operation.pathParams.includes('invitation_id')) {
    const email = `audit-walk.${Date.now()}.${Math.random()}@example.com`;
    values.invitation_id = (
      await call(t, 'POST', '/api/team/invitations', { cookie: owner.cookie, csrf: owner.csrf, body: { email, role: 'viewer' } })
    ).body.data._id;
  }
  return values;
}

const newSession = async (role: 'owner' | 'viewer') => signIn(t, (await member(t, t.a.business.id, role)).email);

describe('every write of the contract', () => {
  it('leaves exactly one event, allowed or refused, by a member of any role or a key; a refusal with its reason', { timeout: 300_000 }, async () => {
    let walked = 0;
    const sessions = { owner: await newSession('owner'), viewer: await newSession('viewer') };
    for (const operation of operations) {
      const declared = contract.get(operation.operationId)!;
      for (const caller of ['owner', 'viewer', 'restricted key'] as const) {
        const values = await pathValues(operation, sessions.owner);
        const session = caller === 'restricted key' ? undefined : sessions[caller];
        const path = apiPath(operation.template, values);
        const body = operation.body?.example;
        const before = await eventCount();
        const status = session
          ? (await call(t, operation.method, path, { cookie: session.cookie, csrf: session.csrf, body })).status
          : (await api(t, restricted, operation.method, path, body)).status;
        const added = (await eventCount()) - before;
        const latest = await latestEvents(added);
        const where = `${operation.operationId} by ${caller} -> ${status}: ${JSON.stringify(latest.slice(0, added))}`;
        expect(added, where).toBe(1);
        const recorded = latest[0]!;
        if (status < 300 && declared.auditedByUseCase) {
          // The use case's own event, named for what it did (`team.member_removed`), never the operation's id.
          expect(recorded.action, where).not.toBe(operation.operationId);
          expect(recorded.outcome, where).toBe('succeeded');
        } else if (PHASED.has(operation.operationId) && recorded.status === 202) {
          expect(recorded, where).toMatchObject({ action: operation.operationId, outcome: 'succeeded', reason: null });
        } else {
          expect(recorded, where).toMatchObject({
            action: operation.operationId,
            status,
            outcome: status < 300 ? 'succeeded' : status < 500 ? 'refused' : 'failed',
          });
          if (status >= 400) expect(typeof recorded.reason === 'string' && recorded.reason.trim().length > 0, where).toBe(true);
          else expect(recorded.reason, where).toBeNull();
        }
        // What a member does to their own account (sign out, a new password, two-factor) may end or renew their session.
        if (session && declared.permission === 'authenticated') sessions[caller as 'owner' | 'viewer'] = await newSession(caller as 'owner' | 'viewer');
        walked += 1;
      }
    }
    expect(walked).toBe(operations.length * 3);
    // The walk reached the team's operations, refused and allowed.
    expect(operations.map((operation) => operation.operationId)).toEqual(expect.arrayContaining(['updateTeamMember', 'createTeamInvitation', 'disableTotp']));
  });
});

describe('what a change changed', () => {
  const detailsOf = async (action: string) => {
    const row = await t.sql('audit_events').where({ business_id: t.a.business.id, action }).orderBy('created_at', 'desc').first('details', 'reason', 'outcome');
    return { ...row, details: row?.details ? JSON.parse(row.details) : null };
  };

  it('a role change names the old and new role; a refused one says why', async () => {
    const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
    const admin = await signIn(t, (await member(t, t.a.business.id, 'admin')).email);
    const target = await member(t, t.a.business.id, 'viewer');
    expect((await call(t, 'PATCH', `/api/team/members/${target.userId}`, { cookie: owner.cookie, csrf: owner.csrf, body: { role: 'finance' } })).status).toBe(
      200,
    );
    expect((await detailsOf('team.member_role_changed')).details).toEqual({ email: target.email, old_role: 'viewer', new_role: 'finance' });
    const refused = await call(t, 'PATCH', `/api/team/members/${admin.me.user._id}`, { cookie: admin.cookie, csrf: admin.csrf, body: { role: 'owner' } });
    expect(refused.status).toBe(422);
    expect(await detailsOf('updateTeamMember')).toMatchObject({ outcome: 'refused', reason: 'role: Only an owner can make, invite or remove an owner.' });
  });

  it('an invitation names its e-mail and role; the two-factor setting its old and new value; the acquirer its hints', async () => {
    const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
    const write = (method: string, path: string, body: unknown) => call(t, method, path, { cookie: owner.cookie, csrf: owner.csrf, body });
    expect((await write('POST', '/api/team/invitations', { email: 'named@example.com', role: 'support' })).status).toBe(200);
    expect((await detailsOf('team.invitation_created')).details).toMatchObject({ email: 'named@example.com', role: 'support' });
    expect((await write('PATCH', '/api/team/settings', { require_two_factor: false })).status).toBe(200);
    expect((await detailsOf('team.two_factor_requirement_changed')).details).toEqual({ setting: 'require_two_factor', old_value: false, new_value: false });
    expect((await write('PUT', '/api/business/acquirer', { acquirer: 'sandbox' })).status).toBe(200);
    const stripe = await write('PUT', '/api/business/acquirer', { acquirer: 'stripe', stripe_secret_key: `sk_test_${'a'.repeat(20)}cdef` });
    expect(stripe.status, JSON.stringify(stripe.body)).toBe(200);
    const acquirer = await detailsOf('setAcquirer');
    expect(acquirer.details).toMatchObject({ old_acquirer: 'sandbox', acquirer: 'stripe', key_hint: stripe.body.data.stripe_key_hint });
    expect(JSON.stringify(acquirer.details)).not.toContain('a'.repeat(20));
    expect((await write('PUT', '/api/business/acquirer', { acquirer: 'sandbox' })).status).toBe(200);
    expect((await write('PATCH', '/api/business', { support_email: 'help@example.com' })).status).toBe(200);
    expect((await detailsOf('updateBusiness')).details).toMatchObject({ changed_fields: ['support_email'], new_support_email: 'help@example.com' });
  });
});
