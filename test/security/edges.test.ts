// No single request can stall or stop the service (OWASP API4): every operation of openapi.yaml, the
// public ones included, from every caller (a member of each role signed in, a restricted key, a full
// key), with boundary values in every parameter and body field (years 0001 and 9999, the extremes of
// each integer and of its schema's bounds and one past them, empty, very long and non-ASCII text,
// deep nesting) and every combination of the enum parameters with the extreme date ranges. None may
// answer 5xx, take over 2 s or refuse in anything but JSON, and /health answers within 1 s throughout.
// The service runs in a process of its own (edge-service.ts), so that one that stops answering (a
// report once walked past 9999-12-31 for ever) fails the run in seconds instead of hanging it.
// What the gate answers a caller (401, 403, 404, 422, 429) is other suites' to check: here only that
// it answers, in time, and in JSON.
import { rmSync } from 'node:fs';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../server/domain/permissions.js';
import { issueKey } from '../../server/store/api-keys.js';
import { knexFor, openDatabase, type Database } from '../../server/store/database.js';
import { createMember } from '../../server/usecases/members/accounts.js';
import { startChild, type ChildService } from '../support/child.js';
import { secretsKeyFor } from '../support/secrets.js';
import type { TestService } from '../support/service.js';
import { runEdges, summary, type Caller, type RunReport, type Sent } from './edge-runner.js';
import { edgeOperations, enumDateRequests, extremeRequests, fieldEdgeRequests, type EdgeOperation, type EdgeRequest } from './edge-values.js';
import { oneOfEach } from './fixture.js';
import { propertiesOf } from './spec.js';

interface EdgeService {
  url: string;
  databaseUrl: string;
  dir: string;
  a: { key: string; businessId: number; name: string };
}

let child: ChildService | undefined;
let service: EdgeService;
let db: Database;
let sql: Knex;
let operations: EdgeOperation[];
const ids: Record<string, string> = {};
const callers: Caller[] = [];
let owner: Caller;
let fullKey: Caller;

/** Not the password openapi.yaml's examples give as the current one: a member's own example request must not change it. */
const PASSWORD = 'quartz-lantern-meadow-58';

const keyCaller = (name: string, key: string): Caller => ({ name, headers: () => ({ Authorization: `Bearer ${key}` }) });

/** A member signed in, as the console is: the session cookie, and the CSRF token on every request. */
async function memberCaller(role: Role, email: string): Promise<Caller & { sessionId: () => string }> {
  let session = { cookie: '', csrf: '', sessionId: '' };
  const signIn = async (): Promise<boolean> => {
    const response = await fetch(`${service.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const body = (await response.json()) as { data?: { csrf_token: string; session_id: string } };
    if (response.status !== 200 || !body.data) return false;
    const cookie = response.headers
      .getSetCookie()
      .find((line) => line.startsWith('pcs_session='))!
      .split(';')[0]!;
    session = { cookie, csrf: body.data.csrf_token, sessionId: body.data.session_id };
    return true;
  };
  expect(await signIn(), `${role} signs in`).toBe(true);
  return {
    name: role,
    headers: () => ({ Cookie: session.cookie, 'X-CSRF-Token': session.csrf }),
    // Signed in again if the service lets them (its sign-in rules are other suites' to hold): else their requests go on without a session.
    renew: async () => void (await signIn()),
    sessionId: () => session.sessionId,
  };
}

beforeAll(async () => {
  child = await startChild({}, 0, 'test/security/edge-service.ts');
  const line = child
    .output()
    .split('\n')
    .find((text) => text.startsWith('{"edgeService"'));
  service = (JSON.parse(line!) as { edgeService: EdgeService }).edgeService;
  db = openDatabase(service.databaseUrl);
  sql = knexFor(service.databaseUrl);
  operations = await edgeOperations();

  const emails = new Map<Role, string>();
  for (const role of ROLES) {
    const email = `${role}@edges.example.com`;
    const made = await createMember({ db }, { businessId: service.a.businessId, email, role, password: PASSWORD });
    expect(made.kind).toBe('created');
    emails.set(role, email);
  }
  // A member the team operations may change and remove, an invitation to revoke, and a second session of the owner's to end.
  const spare = await createMember({ db }, { businessId: service.a.businessId, email: 'spare@edges.example.com', role: 'viewer', password: PASSWORD });
  ids.user_id = spare.kind === 'created' ? spare.userId : '';
  // The fixture of the other security suites, on this service: a record of each kind, live and paid.
  const host = {
    url: service.url,
    sql,
    service: { db, secretsKey: secretsKeyFor(service.databaseUrl) },
    a: { key: service.a.key, business: { id: service.a.businessId } },
  };
  Object.assign(ids, await oneOfEach(host as unknown as TestService));

  for (const role of ROLES) callers.push(await memberCaller(role, emails.get(role)!));
  owner = callers[0]!;
  ids.session_id = (await memberCaller('owner', emails.get('owner')!)).sessionId();
  const invited = await fetch(`${service.url}/api/team/invitations`, {
    method: 'POST',
    headers: { ...owner.headers(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'invitee@edges.example.com', role: 'support' }),
  });
  expect(invited.status).toBe(200);
  ids.invitation_id = ((await invited.json()) as { data: { _id: string } }).data._id;
  const restricted = await issueKey(db, service.a.businessId, { name: 'Edges', permissions: ['payments:read', 'payment_links:read', 'payment_links:write'] });
  callers.push(keyCaller('restricted key', restricted.key));
  fullKey = keyCaller('full key', service.a.key);
  callers.push(fullKey);

  const unknown = [...new Set(operations.flatMap((operation) => operation.pathParams))].filter((name) => ids[name] === undefined);
  expect(unknown, 'path parameters with no record named for them here').toEqual([]);
}, 180_000);

afterAll(async () => {
  await sql?.destroy();
  await db?.close();
  // A service that stopped answering cannot close itself: after a moment it is killed, and its folder removed here.
  const code = await child?.stop(3_000);
  if (code !== 0 && service) {
    rmSync(service.dir, { recursive: true, force: true });
    console.info(`the edge service ended with ${code}; its last words:\n${child!.output().split('\n').slice(-15).join('\n')}`);
  }
  const cpu = /edge service CPU: .*/.exec(child?.output() ?? '');
  if (cpu) console.info(cpu[0]);
}, 30_000);

/** What a request changed that the requests after it rely on, put back. */
async function putBack({ request }: Sent, status: number): Promise<void> {
  if (status !== 200) return;
  if (request.operation.operationId === 'updateTeamSettings') await sql('businesses').where({ id: service.a.businessId }).update({ require_two_factor: false });
  if (request.operation.operationId === 'setAcquirer')
    await fetch(`${service.url}/api/business/acquirer`, {
      method: 'PUT',
      headers: { ...fullKey.headers(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ acquirer: 'sandbox' }),
    });
}

/** Removals and signing out last, so that every other request finds the records and sessions it names. */
const ending = (request: EdgeRequest) => request.operation.method === 'DELETE' || request.operation.operationId === 'logout';

/**
 * The operations taken in turn, one request of each, so that the requests in flight together are of
 * different operations: four sign-ins at once would be four password hashes at once, a wait that
 * no client of one sign-in ever has.
 */
function interleaved(sends: Sent[]): Sent[] {
  const byOperation = new Map<string, Sent[]>();
  for (const sent of sends) byOperation.set(sent.request.operation.operationId, [...(byOperation.get(sent.request.operation.operationId) ?? []), sent]);
  const queues = [...byOperation.values()];
  const out: Sent[] = [];
  for (let round = 0; out.length < sends.length; round += 1) for (const queue of queues) if (queue[round]) out.push(queue[round]!);
  return out;
}
const inOrder = (sends: Sent[]) => [
  ...interleaved(sends.filter((sent) => !ending(sent.request))),
  ...interleaved(sends.filter((sent) => ending(sent.request))),
];

/**
 * Operations that check a password: each hashes what it is sent on purpose slowly (scrypt), so they
 * go one at a time, as a client's own sign-in does, rather than stack up on the hashing threads.
 */
const checksPassword = ({ request }: Sent) =>
  Object.keys(request.operation.body ? propertiesOf(request.operation.body.schema) : {}).some((field) => field.includes('password'));

async function run(name: string, sends: Sent[]): Promise<RunReport> {
  const report = await runEdges(service.url, inOrder(sends), { concurrency: 4, after: putBack, oneAtATime: checksPassword });
  console.info(summary(name, report));
  expect(report.problems, `${report.problems.length} problems`).toEqual([]);
  return report;
}

describe('no request stalls or stops the service', () => {
  it('every parameter and body field of every operation at each of its edges, from one caller (the owner)', async () => {
    const sends = operations.flatMap((operation) => fieldEdgeRequests(operation, ids).map((request) => ({ caller: owner, request })));
    expect(operations.length).toBeGreaterThan(60);
    // Every parameter and field of the contract is at its edges in some request: none is left out by a type the generator missed.
    const named = new Set(sends.map(({ request }) => `${request.operation.operationId} ${request.label.split(' ')[0]}`));
    const fields = operations.flatMap((operation) =>
      [
        ...operation.pathParams.map((name) => `{${name}}`),
        ...[...operation.query, ...operation.headers].map((parameter) => parameter.name),
        ...Object.keys(operation.body ? propertiesOf(operation.body.schema) : {}).map((field) => `body.${field}`),
      ].map((field) => `${operation.operationId} ${field}`),
    );
    expect(fields.filter((field) => !named.has(field))).toEqual([]);
    await run('every field at its edges', sends);
  }, 300_000);

  it('every combination of the enum parameters with the extreme date ranges', async () => {
    const sends = operations.flatMap((operation) => enumDateRequests(operation, ids).map((request) => ({ caller: owner, request })));
    expect(sends.map((sent) => sent.request.operation.operationId)).toContain('getCollectionsReport');
    await run('enums x extreme dates', sends);
  }, 300_000);

  it('every caller (each role signed in, a restricted key, a full key) at every operation: its example, and every field low, then high', async () => {
    const sends = callers.flatMap((caller) => operations.flatMap((operation) => extremeRequests(operation, ids).map((request) => ({ caller, request }))));
    await run('every caller at every operation', sends);
  }, 300_000);

  it("and the service logged no error for any of it: a refusal is the client's mistake", () => {
    const errors = child!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && Number((JSON.parse(line) as { level?: number }).level) >= 50);
    expect(errors.map((line) => line.slice(0, 400))).toEqual([]);
  });
});
