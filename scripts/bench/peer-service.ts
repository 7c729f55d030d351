// What the bench's peer servers share with the service: the same database, the same key check and
// the same payment-link handlers, use cases and store, and the same per-request work around them: a
// request id (X-Request-Id), the rate limiter and its headers, the query-length and path checks, an
// access line through the service's logger and its scrubbing, a write's audit entry in the write's own
// transaction, an Idempotency-Key run through the idempotency use case, and the outbox worker that
// sends what the writes enqueue. A peer differs from the service only in the HTTP framework, its logging
// integration and the validator in front of that work, which is what the comparison measures.
import { loadConfig } from '../../server/config.js';
import { paymentLinkHandlers } from '../../server/handlers/payment-links.js';
import { ConflictError, MAX_QUERY_BYTES, toErrorResponse, TooManyRequestsError, UriTooLongError, ValidationError } from '../../server/http/errors.js';
import { responderFor, type CallerBusiness } from '../../server/http/operations.js';
import { createLogger } from '../../server/logger.js';
import { createDeliverers } from '../../server/outbox/deliverers.js';
import { createMailer } from '../../server/outbox/mailer.js';
import { OutboxWorker } from '../../server/outbox/worker.js';
import { createRateLimiter } from '../../server/rate-limits/backends.js';
import { auditedWrites } from '../../server/usecases/platform/audited-writes.js';
import { openDatabase } from '../../server/store/database.js';
import { CallerCache } from '../../server/store/api-key-cache.js';
import type { UseCaseContext } from '../../server/usecases/platform/context.js';
import { sandboxContext } from './sandbox-context.js';

export { requestIdOf } from '../../server/http/request-log.js';

export interface PeerReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What the service's API gate decides before any route: the caller, the limit's headers, or a refusal. */
export interface PeerGate {
  business: CallerBusiness | undefined;
  headers: Record<string, string>;
  refused?: PeerReply;
}

export interface PeerRequest {
  business: CallerBusiness;
  body?: unknown;
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  rawQuery?: string;
  /** The request's Idempotency-Key header, if any. */
  idempotencyKey?: string;
  /** The request line, for the Idempotency-Key's request hash as the service keeps it. */
  method?: string;
  urlPath?: string;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BENCH_ACTOR = { kind: 'operator' } as const;

export function peerService(databaseUrl = process.env.DATABASE_URL!, publicUrl = `http://127.0.0.1:${process.env.PORT}`) {
  // The service's own configuration, logger and limiter, as `npm start` builds them from the environment.
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl });
  const logger = createLogger({ level: config.logLevel });
  const db = openDatabase(databaseUrl);
  const limiter = createRateLimiter(db, config.rateLimit);
  const callers = new CallerCache(db, config.apiKeyCacheMs);
  // The service's outbox worker, as `npm start` runs it: it polls the outbox and sends what the writes
  // enqueue (nothing, for the bench's links, which ask for no e-mail), in the peers as in the service.
  const sandbox = sandboxContext(db, publicUrl);
  const worker = config.outbox.worker
    ? new OutboxWorker(
        db,
        createDeliverers(db, createMailer(config.mail), {
          webhookTimeoutMs: config.outbox.webhookTimeoutMs,
          webhookPolicy: { allowPrivate: false, serviceUrls: [publicUrl] },
          breaker: config.outbox.breaker,
          logger,
          secretsKey: sandbox.secretsKey,
        }),
        { ...config.outbox, logger },
      )
    : undefined;
  worker?.start();
  const ctx = { ...sandbox, outbox: { nudge: () => worker?.nudge() } };
  const respond = responderFor([200, 404, 409, 422]);
  const handle = (operation: keyof typeof paymentLinkHandlers, request: PeerRequest, scope: UseCaseContext) =>
    (paymentLinkHandlers[operation].handle as (input: unknown, scope: UseCaseContext, answer: unknown) => Promise<PeerReply>)(
      { body: request.body, path: request.path ?? {}, query: request.query ?? {}, rawQuery: request.rawQuery ?? '', business: request.business },
      scope,
      respond,
    );
  // Under an Idempotency-Key, the service's own wrapper (which records the audit entry too) and, as its router does, its answers for a refusal.
  const scopes = auditedWrites(ctx, toErrorResponse);
  // A write records its audit entry in the transaction of its change, as the service's router does for every write.
  const run = async (operation: keyof typeof paymentLinkHandlers, request: PeerRequest): Promise<PeerReply> => {
    if (request.method !== 'POST') return handle(operation, request, ctx);
    const trail = {
      draft: { businessId: request.business.id, actor: BENCH_ACTOR, action: operation, targetIds: [], clientAddress: null, userAgent: null, requestId: null },
    };
    if (!request.idempotencyKey)
      return scopes.write(trail, false, (scope) => handle(operation, request, scope)).catch((error: unknown) => toErrorResponse(error));
    const idempotent = { businessId: request.business.id, key: request.idempotencyKey, method: 'POST', path: request.urlPath ?? '', body: request.body };
    return scopes
      .idempotent(idempotent, trail, (scope) => handle(operation, request, scope))
      .then((outcome): PeerReply => {
        if (outcome.kind === 'ran') return outcome.reply as PeerReply;
        if (outcome.kind === 'replay') return { ...(outcome.reply as PeerReply), headers: { 'Idempotent-Replayed': 'true' } };
        return toErrorResponse(
          outcome.kind === 'mismatch'
            ? new ValidationError({ idempotency_key: ['This idempotency key was already used with a different request.'] })
            : new ConflictError('A request with this Idempotency-Key is still being processed. Retry it later.'),
        );
      })
      .catch((error: unknown) => toErrorResponse(error));
  };
  return {
    logger,
    /**
     * The service's gate for every /api request (server/http/app.ts): the caller behind the key, one hit
     * on its limit (or its address's, without a valid key) with the limit's headers, then the query's length.
     */
    async gate(request: { authorization: string | undefined; ip: string; querystring: string }): Promise<PeerGate> {
      const key = BEARER.exec(request.authorization ?? '')?.[1];
      const caller = key ? await callers.find(key) : undefined;
      const limit = await limiter.hit(caller ? caller.rateKey : `ip:${request.ip}`);
      const headers = { 'X-RateLimit-Limit': String(limit.limit), 'X-RateLimit-Remaining': String(limit.remaining) };
      if (!limit.allowed) return { business: undefined, headers, refused: toErrorResponse(new TooManyRequestsError(limit.retryAfter)) };
      if (Buffer.byteLength(request.querystring) > MAX_QUERY_BYTES) return { business: undefined, headers, refused: toErrorResponse(new UriTooLongError()) };
      return { business: caller?.business, headers };
    },
    create: (request: PeerRequest) => run('createPaymentLink', request),
    get: (request: PeerRequest) => run('getPaymentLink', request),
    list: (request: PeerRequest) => run('listPaymentLinks', request),
  };
}
