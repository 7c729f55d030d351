// POST /stripe/webhooks/{business_id}: where a business registers its Stripe account's webhook.
// Anyone can post here, naming any business, so the route does as little as it can for a stranger:
// posts are counted per client address (429 past the limit), a body declared larger than any Stripe
// event is refused unread (413), and the business and signature are checked before the body is read,
// and then only up to that size. Every refusal is the same 400, whatever its reason (an unknown
// business, one not on Stripe, no secret, a missing or bad signature), so the answers tell nobody
// which businesses use Stripe; the reason goes to the service's log. Stripe retries what it was
// refused, so a real delivery refused while its business was being set up arrives later. A body
// left unread is drained within bounds before the connection closes (server/http/linger.ts).
// Answers are JSON for Stripe's delivery log: 200 once handled (or already handled).
import Router from '@koa/router';
import type Koa from 'koa';
import { receiveAcquirerNotification } from '../usecases/settlement/acquirer-events.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import type { NotificationLimiter } from '../rate-limits/acquirer-notifications.js';

/** Stripe's events are a few kilobytes; a body past this is not one. */
export const MAX_NOTIFICATION_BYTES = 64 * 1024;

export const NOTIFICATION_REFUSED = { message: "The notification was refused. The reason is in the service's log, under this answer's X-Request-Id." };

const BUSINESS_ID = /^\d{1,15}$/;

/** The whole body, or undefined once it passes `max` bytes (what is left is not read here). */
function readUpTo(req: Koa.Context['req'], max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.pause();
      settle(() => resolve(undefined));
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks)));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => reject(new Error('the client closed the connection before the end of its notification')));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

function refuse(koa: Koa.Context, businessId: string, reason: string): void {
  (koa.state.log as { warn(details: object, message: string): void } | undefined)?.warn({ business_id: businessId, reason }, 'acquirer notification refused');
  koa.status = 400;
  koa.body = NOTIFICATION_REFUSED;
}

/** What the endpoint is built with: the use cases' context and the limit on posts per client. */
export interface NotificationDeps extends UseCaseContext {
  notificationLimiter: NotificationLimiter;
}

export function acquirerWebhook(deps: NotificationDeps, acquirer: 'stripe'): Koa.Middleware {
  return async (koa) => {
    koa.set('Cache-Control', 'no-store');
    const retryAfter = await deps.notificationLimiter.post(koa.ip);
    if (retryAfter !== undefined) {
      koa.set('Retry-After', String(retryAfter));
      koa.status = 429;
      koa.body = { message: `Too many notifications from this address. Retry after ${retryAfter} seconds.` };
      return;
    }
    // Declared too large: refused unread, alike for every business id.
    if (Number(koa.get('content-length')) > MAX_NOTIFICATION_BYTES) {
      koa.status = 413;
      koa.body = { message: `The notification must not be larger than ${MAX_NOTIFICATION_BYTES / 1024} KiB.` };
      return;
    }
    const business = String(koa.params.business);
    const businessId = Number(business);
    if (!BUSINESS_ID.test(business) || businessId < 1) return refuse(koa, business.slice(0, 20), 'not a business id');
    const outcome = await receiveAcquirerNotification(deps, businessId, acquirer, koa.get('stripe-signature') || undefined, () =>
      readUpTo(koa.req, MAX_NOTIFICATION_BYTES),
    );
    if (outcome.result === 'refused') return refuse(koa, business, outcome.reason);
    koa.body = { received: true, result: outcome.result, event: outcome.eventId };
  };
}

/** The acquirers' notification routes, mounted beside the payer pages: one address per business (docs/operating.md, Stripe). */
export function acquirerRoutes(deps: NotificationDeps): Koa.Middleware {
  const router = new Router();
  router.post('/stripe/webhooks/:business', acquirerWebhook(deps, 'stripe'));
  return router.routes() as unknown as Koa.Middleware;
}
