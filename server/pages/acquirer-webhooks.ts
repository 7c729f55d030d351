// POST /stripe/webhooks/{business_id}: where a business registers its Stripe account's webhook. The
// body is read raw (the signature is over its exact bytes), verified with that business's signing
// secret, and handed to the use case, which acts on each event once. Answers are JSON for Stripe's
// delivery log: 200 once handled (or already handled), 400 when the signature does not verify.
import type Koa from 'koa';
import { receiveAcquirerNotification } from '../usecases/acquirer-notifications.js';
import type { PageDeps } from './deps.js';

/** Stripe's events are a few kilobytes; a body past this is not one. */
const MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLarge extends Error {}

async function rawBody(ctx: Koa.Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function acquirerWebhook(deps: PageDeps, provider: 'stripe'): Koa.Middleware {
  return async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const businessId = Number(ctx.params.business);
    if (!/^\d{1,15}$/.test(String(ctx.params.business)) || businessId < 1) {
      ctx.status = 404;
      ctx.body = { message: 'No such business.' };
      return;
    }
    let body: Buffer;
    try {
      body = await rawBody(ctx);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      ctx.set('Connection', 'close');
      ctx.status = 413;
      ctx.body = { message: 'The notification is too large.' };
      return;
    }
    const outcome = await receiveAcquirerNotification(deps, businessId, provider, body, ctx.get('stripe-signature') || undefined);
    if (outcome.result === 'refused') {
      ctx.status = 400;
      ctx.body = { message: `Notification refused: ${outcome.reason}` };
      return;
    }
    ctx.body = { received: true, result: outcome.result, event: outcome.eventId };
  };
}
