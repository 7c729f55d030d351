// The audit log's one rule, over generated requests to every operation of openapi.yaml: a write
// (POST, PUT, PATCH, DELETE) by a known caller leaves exactly one event, whatever its outcome (done,
// refused for its body, its permission, its state or a reused Idempotency-Key, replayed), naming the
// operation and the answer; a read leaves none, and so does a request without a valid key.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { paymentHandlers } from '../../server/handlers/payments.js';
import { tokenizationHandlers } from '../../server/handlers/tokenizations.js';
import { useService } from '../support/service.js';
import { api, oneOfEach } from '../security/fixture.js';
import { apiPath, loadSpec, type SpecOperation } from '../security/spec.js';
import { holds } from './harness.js';

const t = useService();
const ids: Record<string, string> = {};
let operations: SpecOperation[];
let restricted: string;

beforeAll(async () => {
  operations = (await loadSpec()).operations;
  Object.assign(ids, await oneOfEach(t));
  const made = await api(t, t.a.key, 'POST', '/api/api-keys', { name: 'Reader', permissions: ['payments:read', 'payment_links:read'] });
  restricted = (made.body as { data: { secret: string } }).data.secret;
});

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * Operations that ask an acquirer keep their answers in phases: the event is recorded with the first
 * change, with the answer then true (a pending payment or refund, 202), not the final one.
 */
const PHASED = new Set(
  Object.entries({ ...paymentHandlers, ...tokenizationHandlers })
    .filter(([, handler]) => 'atomicPhases' in handler && handler.atomicPhases)
    .map(([operationId]) => operationId),
);

interface Case {
  operation: number;
  credential: 'full' | 'restricted' | 'none';
  body: 'example' | 'empty' | 'broken';
  idempotencyKey: string | undefined;
}

const cases: fc.Arbitrary<Case> = fc.record({
  operation: fc.nat(1_000),
  credential: fc.constantFrom('full', 'full', 'restricted', 'none'),
  body: fc.constantFrom('example', 'example', 'empty', 'broken'),
  // A few keys, so that retries (replays) and reuse with another request (refusals) both come up.
  idempotencyKey: fc.option(fc.constantFrom('audit-1', 'audit-2'), { nil: undefined }),
});

async function eventsOfA(): Promise<{ action: string; outcome: string; status: number | null }[]> {
  return t
    .sql('audit_events')
    .where({ business_id: t.a.business.id })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: '_id', order: 'desc' },
    ])
    .select('action', 'outcome', 'status');
}

describe('the audit log', () => {
  it('every write leaves exactly one event, reads and unauthenticated requests none', async () => {
    let writes = 0;
    await holds(
      'one audit event per write',
      cases,
      async (generated) => {
        const operation = operations[generated.operation % operations.length]!;
        const key = generated.credential === 'full' ? t.a.key : generated.credential === 'restricted' ? restricted : '';
        const headers: Record<string, string> = {};
        if (generated.idempotencyKey) headers['Idempotency-Key'] = generated.idempotencyKey;
        const path = apiPath(operation.template, ids);
        const before = (await eventsOfA()).length;
        let status: number;
        if (generated.body === 'broken' && operation.body) {
          const response = await fetch(`${t.url}${path}`, {
            method: operation.method,
            headers: { ...headers, ...(key && { Authorization: `Bearer ${key}` }), 'Content-Type': 'application/json' },
            body: '{"broken":',
          });
          await response.arrayBuffer();
          status = response.status;
        } else {
          const body = operation.body ? (generated.body === 'example' ? operation.body.example : {}) : undefined;
          status = (await api(t, key, operation.method, path, body, headers)).status;
        }
        const after = await eventsOfA();
        const audited = WRITES.has(operation.method) && generated.credential !== 'none';
        expect(after.length - before, `${operation.operationId} (${generated.credential}, ${generated.body}) -> ${status}`).toBe(audited ? 1 : 0);
        if (audited) {
          writes += 1;
          const outcome = status < 300 ? 'succeeded' : status < 500 ? 'refused' : 'failed';
          const recorded = after[0]!;
          const where = `${operation.operationId} -> ${status}: ${JSON.stringify(recorded)}`;
          if (PHASED.has(operation.operationId) && recorded.status === 202)
            expect(recorded, where).toEqual({ action: operation.operationId, outcome: 'succeeded', status: 202 });
          else expect(recorded, where).toEqual({ action: operation.operationId, outcome, status });
        }
      },
      120,
    );
    expect(writes).toBeGreaterThan(0);
  });
});
