// The test service with a webhook receiver on loopback set for business A, and the events it received,
// verified with the business's key: the set-up of every suite that watches webhooks.
import { verifyWebhook, type WebhookEvent } from '../../client/webhooks.js';
import { setWebhook } from '../../server/store/businesses.js';
import { startReceiver, type Answer, type Receiver } from './receiver.js';
import { lazy, useStarted } from './lifecycle.js';
import { resolvedOptions, startTestService, type LazyOptions, type TestService, type TestServiceOptions } from './service.js';

export const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export interface WebhookTestService {
  t: TestService;
  receiver: Receiver;
  /** Every event received so far, signature checked. */
  events(): WebhookEvent[];
  close(): Promise<void>;
}

export async function startWebhookTestService(
  options: TestServiceOptions = {},
  respond?: (n: number) => Answer | 'hang' | Promise<Answer | 'hang'>,
): Promise<WebhookTestService> {
  const receiver = await startReceiver(respond);
  const t = await startTestService(options);
  await setWebhook(t.service.db, t.a.business.id, { url: receiver.url, secret: WEBHOOK_SECRET }, t.service.secretsKey);
  return {
    t,
    receiver,
    events: () => receiver.requests.map((request) => verifyWebhook(request.raw, request.headers as Record<string, string>, WEBHOOK_SECRET)),
    async close() {
      await t.close();
      await receiver.close();
    },
  };
}

/** The webhook test service of this file (or describe block), started before its tests and closed after them. */
export function useWebhookService(
  options: LazyOptions<TestServiceOptions> = {},
  respond?: (n: number) => Answer | 'hang' | Promise<Answer | 'hang'>,
): WebhookTestService {
  const w = useStarted(async () => startWebhookTestService(await resolvedOptions(options), respond));
  // Each part a handle of its own, so a file may write `const { t, receiver } = useWebhookService()`.
  return { t: lazy(() => w.t), receiver: lazy(() => w.receiver), events: () => w.events(), close: () => w.close() };
}
