// A peer the bench measures beside the service: express 5 with express-openapi-validator, the most
// common OpenAPI-validated Node.js stack, validating every request against openapi.yaml (the same
// custom formats as the service), then doing the service's own work: request id, rate limit, key
// check, handler, use case and store, and an access line per request through pino-http on the
// service's pino logger (peer-service.ts). Answers 401/404/422 in the service's envelope, not
// Laravel's texts: only the successful paths are measured.
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { pinoHttp } from 'pino-http';
import { CUSTOM_FORMATS, SPEC_PATH } from '../../server/http/contract.js';
import type { CallerBusiness } from '../../server/http/operations.js';
import { peerService, requestIdOf, type PeerReply } from './peer-service.js';

const service = peerService();
const app = express();
const businessOf = new WeakMap<Request, CallerBusiness>();
// One line per answered request on the service's logger, with the service's line's fields.
app.use(
  pinoHttp({
    logger: service.logger,
    genReqId: (request, response) => {
      const id = requestIdOf(String(request.headers['x-request-id'] ?? ''));
      response.setHeader('X-Request-Id', id);
      return id;
    },
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'request_id' },
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request',
    customSuccessObject: (request, response, logged: { responseTime: number }) => {
      const business = businessOf.get(request as Request);
      return {
        method: request.method,
        route: ((request as Request).route as { path?: string } | undefined)?.path ?? null,
        status: response.statusCode,
        duration_ms: logged.responseTime,
        ...(business && { business_id: business.id }),
      };
    },
  }),
);
// Before the body and validation, as the service's gate: every /api request is counted.
app.use((request: Request, response: Response, next: NextFunction) => {
  service
    .gate({ authorization: request.headers.authorization, ip: request.ip ?? '', querystring: request.url.split('?')[1] ?? '' })
    .then((gate) => {
      response.set(gate.headers);
      if (gate.refused) {
        response
          .status(gate.refused.status)
          .set(gate.refused.headers ?? {})
          .json(gate.refused.body);
        return;
      }
      if (gate.business) businessOf.set(request, gate.business);
      next();
    }, next);
});
app.use(express.json({ limit: '1mb' }));
app.use(
  OpenApiValidator.middleware({
    apiSpec: SPEC_PATH,
    validateRequests: { allErrors: true },
    validateResponses: false,
    validateSecurity: false,
    formats: Object.fromEntries(Object.entries(CUSTOM_FORMATS).map(([name, validate]) => [name, { type: 'string', validate }])),
  }),
);

type Work = (request: Request, business: CallerBusiness) => Promise<PeerReply>;
const route = (work: Work) => async (request: Request, response: Response, next: NextFunction) => {
  try {
    const business = businessOf.get(request);
    if (!business) {
      response.status(401).json({ message: 'Unauthenticated.' });
      return;
    }
    const reply = await work(request, business);
    response
      .status(reply.status)
      .set(reply.headers ?? {})
      .json(reply.body);
  } catch (error) {
    next(error);
  }
};

const idempotency = (request: Request) => ({ idempotencyKey: request.get('idempotency-key'), method: request.method, urlPath: request.path });
app.post('/api/payment-links', route((request, business) => service.create({ business, body: request.body, ...idempotency(request) })));
app.get('/api/payment-links', route((request, business) => service.list({ business, query: request.query as Record<string, unknown>, rawQuery: request.url.split('?')[1] ?? '' })));
app.get('/api/payment-links/:payment_link_id', route((request, business) => service.get({ business, path: { payment_link_id: String(request.params.payment_link_id) } })));
app.use((error: { status?: number; message?: string; errors?: unknown }, _request: Request, response: Response, _next: NextFunction) => {
  response.status(error.status ?? 500).json({ message: error.message ?? 'Server Error', errors: error.errors ?? null });
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on express peer'));
