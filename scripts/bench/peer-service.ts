// What the bench's peer servers share with the service: the same database, the same key check and
// the same payment-link handlers, use cases and store. A peer differs from the service only in the
// HTTP framework and the validator in front of that work, which is what the comparison measures.
import { randomBytes } from 'node:crypto';
import { MasterKey } from '../../server/secrets/master-key.js';
import { paymentLinkHandlers } from '../../server/handlers/payment-links.js';
import { responderFor, type CallerBusiness } from '../../server/http/operations.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { openDatabase } from '../../server/store/database.js';
import { CallerCache } from '../../server/store/api-key-cache.js';
import type { UseCaseContext } from '../../server/usecases/context.js';
import { singleAcquirer } from '../../server/usecases/acquirer-directory.js';

export interface PeerReply {
  status: number;
  body: unknown;
}

export interface PeerRequest {
  business: CallerBusiness;
  body?: unknown;
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  rawQuery?: string;
}

export function peerService(databaseUrl = process.env.DATABASE_URL!, publicUrl = `http://127.0.0.1:${process.env.PORT}`) {
  const db = openDatabase(databaseUrl);
  const callers = new CallerCache(db);
  const ctx: UseCaseContext = {
    db,
    publicUrl,
    acquirers: singleAcquirer(new SandboxAcquirer()),
    outbox: { nudge: () => undefined },
    webhooks: { policy: { allowPrivate: false, serviceUrls: [publicUrl] } },
    // The peer serves payment links only, without Idempotency-Key: its key seals nothing.
    secretsKey: new MasterKey(randomBytes(32)),
  };
  const respond = responderFor([200, 404, 409, 422]);
  const run = (operation: keyof typeof paymentLinkHandlers, request: PeerRequest) =>
    (paymentLinkHandlers[operation].handle as (input: unknown, scope: UseCaseContext, answer: unknown) => Promise<PeerReply>)(
      { body: request.body, path: request.path ?? {}, query: request.query ?? {}, rawQuery: request.rawQuery ?? '', business: request.business },
      ctx,
      respond,
    );
  return {
    /** The business behind an `Authorization: Bearer` header, as the service finds it. */
    async caller(authorization: string | undefined): Promise<CallerBusiness | undefined> {
      const key = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
      return key ? (await callers.find(key))?.business : undefined;
    },
    create: (request: PeerRequest) => run('createPaymentLink', request),
    get: (request: PeerRequest) => run('getPaymentLink', request),
    list: (request: PeerRequest) => run('listPaymentLinks', request),
  };
}
