// A peer the bench measures beside the service: express 5 with express-openapi-validator, the most
// common OpenAPI-validated Node.js stack, validating every request against openapi.yaml (the same
// custom formats as the service), then doing the service's own work: key check, handler, use case
// and store (peer-service.ts). Answers 401/404/422 in the service's envelope, not Laravel's texts:
// only the successful paths are measured.
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { CUSTOM_FORMATS, SPEC_PATH } from '../../server/http/contract.js';
import type { CallerBusiness } from '../../server/http/operations.js';
import { peerService, type PeerReply } from './peer-service.js';

const service = peerService();
const app = express();
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
    const business = await service.caller(request.headers.authorization);
    if (!business) {
      response.status(401).json({ message: 'Unauthenticated.' });
      return;
    }
    const reply = await work(request, business);
    response.status(reply.status).json(reply.body);
  } catch (error) {
    next(error);
  }
};

app.post('/api/payment-links', route((request, business) => service.create({ business, body: request.body })));
app.get('/api/payment-links', route((request, business) => service.list({ business, query: request.query as Record<string, unknown>, rawQuery: request.url.split('?')[1] ?? '' })));
app.get('/api/payment-links/:payment_link_id', route((request, business) => service.get({ business, path: { payment_link_id: String(request.params.payment_link_id) } })));
app.use((error: { status?: number; message?: string; errors?: unknown }, _request: Request, response: Response, _next: NextFunction) => {
  response.status(error.status ?? 500).json({ message: error.message ?? 'Server Error', errors: error.errors ?? null });
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on express peer'));
