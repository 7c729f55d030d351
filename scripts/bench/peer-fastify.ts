// A peer the bench measures beside the service: fastify 5, the fastest Node.js stack, with each
// route's Ajv schemas (body, query, path) taken from openapi.yaml's operations as openapi-backend
// dereferenced them, then doing the service's own work: request id, rate limit, key check, handler,
// use case and store, and an access line per request through fastify's own request logger, which is
// the service's pino logger (peer-service.ts). Only the successful paths are measured.
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { CUSTOM_FORMATS, loadContract } from '../../server/http/contract.js';
import type { CallerBusiness } from '../../server/http/operations.js';
import { peerService, requestIdOf, type PeerReply } from './peer-service.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: unknown;
}

const { api } = await loadContract();
/** fastify's route schemas for one operation of openapi.yaml. */
function schemasOf(operationId: string) {
  const operation = api.getOperation(operationId);
  if (!operation) throw new Error(`openapi.yaml has no operation ${operationId}`);
  const parameters = (operation.parameters ?? []) as unknown as Parameter[];
  const group = (where: string) => {
    const chosen = parameters.filter((parameter) => parameter.in === where);
    if (chosen.length === 0) return undefined;
    return { type: 'object', properties: Object.fromEntries(chosen.map((p) => [p.name, p.schema])), required: chosen.filter((p) => p.required).map((p) => p.name) };
  };
  const body = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema;
  // fastify warns about a schema given as undefined; leave out what the operation does not have.
  return Object.fromEntries(Object.entries({ body, querystring: group('query'), params: group('path') }).filter(([, schema]) => schema !== undefined));
}

const service = peerService();
const app = Fastify({
  bodyLimit: 1024 * 1024,
  // fastify's request logging on the service's logger: a child per request bound to its id, as the
  // service's own line carries it; the one access line is written when the answer is sent.
  loggerInstance: service.logger,
  disableRequestLogging: true,
  requestIdHeader: false,
  requestIdLogLabel: 'request_id',
  genReqId: (request) => requestIdOf(String(request.headers['x-request-id'] ?? '')),
  ajv: {
    customOptions: { strict: false, allErrors: true },
    plugins: [
      (ajv) => {
        for (const [name, validate] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, validate);
        return ajv;
      },
    ],
  },
});

const businessOf = new WeakMap<FastifyRequest, CallerBusiness>();
// Before routing and validation, as the service's gate: every /api request is counted.
app.addHook('onRequest', async (request, reply) => {
  reply.header('X-Request-Id', request.id);
  const gate = await service.gate({ authorization: request.headers.authorization, ip: request.ip, querystring: request.url.split('?')[1] ?? '' });
  reply.headers(gate.headers);
  if (gate.refused) return reply.code(gate.refused.status).headers(gate.refused.headers ?? {}).send(gate.refused.body);
  if (gate.business) businessOf.set(request, gate.business);
});
app.addHook('onResponse', async (request, reply) => {
  const business = businessOf.get(request);
  request.log.info(
    {
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      duration_ms: reply.elapsedTime,
      ...(business && { business_id: business.id }),
    },
    'request',
  );
});

type Work = (request: FastifyRequest, business: CallerBusiness) => Promise<PeerReply>;
const route = (work: Work) => async (request: FastifyRequest, reply: FastifyReply) => {
  const business = businessOf.get(request);
  if (!business) return reply.code(401).send({ message: 'Unauthenticated.' });
  const answer = await work(request, business);
  return reply
    .code(answer.status)
    .headers(answer.headers ?? {})
    .send(answer.body);
};

const idempotency = (request: FastifyRequest) => ({
  idempotencyKey: request.headers['idempotency-key'] as string | undefined,
  method: request.method,
  urlPath: request.url.split('?')[0],
});
app.post('/api/payment-links', { schema: schemasOf('createPaymentLink') }, route((request, business) => service.create({ business, body: request.body, ...idempotency(request) })));
app.get('/api/payment-links', { schema: schemasOf('listPaymentLinks') }, route((request, business) => service.list({ business, query: request.query as Record<string, unknown>, rawQuery: request.url.split('?')[1] ?? '' })));
app.get(
  '/api/payment-links/:payment_link_id',
  { schema: schemasOf('getPaymentLink') },
  route((request, business) => service.get({ business, path: request.params as Record<string, string> })),
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('listening on fastify peer');
