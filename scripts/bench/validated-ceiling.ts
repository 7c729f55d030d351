// The ceiling with the contract in the path: bare Koa whose requests go through the service's own
// request path (routes built from openapi.yaml's operation table, body reading, parameter shaping,
// the bearer rule, and the validators openapi-backend compiled), whose handlers answer the envelopes
// the service answered (captured by the bench). No key lookup, rate limit, database or logging:
// what is left of the bare ceiling once each request is validated against the spec, the one step
// the service may not skip.
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { loadContract } from '../../server/http/contract.js';
import { toErrorResponse } from '../../server/http/errors.js';
import type { Caller, Handlers } from '../../server/http/operations.js';
import { PERMISSIONS } from '../../server/domain/permissions.js';
import { contractRoutes, type Scopes } from '../../server/http/routes.js';

const bodies = JSON.parse(readFileSync(process.env.CEILING_BODIES!, 'utf8')) as { create: unknown; get: unknown; list: unknown };
const answers: Record<string, unknown> = { createPaymentLink: bodies.create, getPaymentLink: bodies.get, listPaymentLinks: bodies.list };
const contract = await loadContract();
const handlers = Object.fromEntries(contract.operations.map(({ operationId }) => [operationId, { handle: async () => ({ status: 200, body: answers[operationId] ?? {} }) }])) as unknown as Handlers<null>;
// Idempotency-Key storage is the only use the request path makes of a database; the bench sends no key.
// The ceiling of validation alone: writes run in no transaction and leave no audit entry.
const scopes: Scopes<null> = {
  plain: null,
  idempotent: () => Promise.reject(new Error('the bench sends no Idempotency-Key')),
  write: (_trail, _atomic, work) => work(null),
  settle: async () => {},
};
// A full key's caller: the permission check runs, as it does for the service, and passes.
const caller: Caller = { business: { id: 1, name: 'Bench' }, actor: { kind: 'api_key', id: '0', name: 'bench' }, permissions: new Set(PERMISSIONS), rateKey: 'key:0' };
const app = new Koa();
app.use(async (ctx, next) => {
  try {
    ctx.state.caller = caller;
    await next();
  } catch (error) {
    const response = toErrorResponse(error);
    ctx.status = response.status;
    ctx.body = response.body;
  }
});
app.use(contractRoutes(contract, handlers, scopes).middleware);
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on validated ceiling'));
