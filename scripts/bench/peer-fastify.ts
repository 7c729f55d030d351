// A peer the bench measures beside the service: fastify 5, the fastest Node.js stack, with each
// route's Ajv schemas (body, query, path) taken from openapi.yaml's operations as openapi-backend
// dereferenced them, then doing the service's own work: key check, handler, use case and store
// (peer-service.ts). Only the successful paths are measured.
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { CUSTOM_FORMATS, loadContract } from '../../server/http/contract.js';
import type { CallerBusiness } from '../../server/http/operations.js';
import { peerService, type PeerReply } from './peer-service.js';

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

type Work = (request: FastifyRequest, business: CallerBusiness) => Promise<PeerReply>;
const route = (work: Work) => async (request: FastifyRequest, reply: FastifyReply) => {
  const business = await service.caller(request.headers.authorization);
  if (!business) return reply.code(401).send({ message: 'Unauthenticated.' });
  const answer = await work(request, business);
  return reply.code(answer.status).send(answer.body);
};

app.post('/api/payment-links', { schema: schemasOf('createPaymentLink') }, route((request, business) => service.create({ business, body: request.body })));
app.get('/api/payment-links', { schema: schemasOf('listPaymentLinks') }, route((request, business) => service.list({ business, query: request.query as Record<string, unknown>, rawQuery: request.url.split('?')[1] ?? '' })));
app.get(
  '/api/payment-links/:payment_link_id',
  { schema: schemasOf('getPaymentLink') },
  route((request, business) => service.get({ business, path: request.params as Record<string, string> })),
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('listening on fastify peer');
