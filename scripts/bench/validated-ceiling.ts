// The ceiling with the contract in the path: bare Koa that reads the body as the service does and
// hands every request to the service's own openapi-backend setup (openapi.yaml, the same Ajv and
// formats, routing, parameter parsing, bearer security rule, request validation), whose operations
// answer the envelopes the service answered (captured by the bench). No key lookup, rate limit,
// database or logging: what is left of the bare ceiling once each request is validated against the
// spec, the one step the service may not skip.
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { parse as parseYaml } from 'yaml';
import { readJsonBody } from '../../server/http/body.js';
import { createApi, SPEC_PATH } from '../../server/http/openapi.js';
import type { Operations } from '../../server/http/operations.js';

const bodies = JSON.parse(readFileSync(process.env.CEILING_BODIES!, 'utf8')) as { create: unknown; get: unknown; list: unknown };
const answers: Record<string, unknown> = { createPaymentLink: bodies.create, getPaymentLink: bodies.get, listPaymentLinks: bodies.list };
const spec = parseYaml(readFileSync(SPEC_PATH, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
const operationIds = Object.values(spec.paths).flatMap((item) => Object.values(item).flatMap((operation) => (operation?.operationId ? [operation.operationId] : [])));
const operations = Object.fromEntries(operationIds.map((id) => [id, { handle: async () => answers[id] ?? {} }])) as Operations;

// Idempotency-Key storage is the only use createApi makes of the database; the bench sends no key.
const api = await createApi({ operations, db: undefined as never });
const caller = { keyId: 0, business: { id: 1 } };
const app = new Koa();
app.use(async (ctx) => {
  ctx.state.caller = caller;
  await readJsonBody(ctx);
  const response = await api.handleRequest(
    { method: ctx.method, path: ctx.path, body: ctx.request.body, query: ctx.querystring, headers: ctx.headers as Record<string, string> },
    ctx,
  );
  ctx.status = response.status;
  ctx.body = response.body;
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on validated ceiling'));
