// Delivers one signed event to a business's webhook URL. A 2xx is success; anything else, a timeout
// or a refused connection is an error the worker retries. Redirects are not followed: the business
// registered this URL, not wherever it points to. Where the URL may lead is webhook-target.ts's call,
// made before the request and again by the socket's own name lookup.
import { Agent, fetch, type Response } from 'undici';
import { Webhook } from 'standardwebhooks';
import { signedBody, type StoredEvent } from './messages.js';
import { checkWebhookUrl, guardedLookup, RefusedAddressError, type WebhookPolicy } from './webhook-target.js';

export class PermanentDeliveryError extends Error {}

/** The receiver answered, with a status other than 2xx. */
export class RejectedDeliveryError extends Error {
  constructor(readonly status: number) {
    super(`webhook answered HTTP ${status}`);
  }
}

export interface WebhookTarget {
  url: string;
  /**
   * The keys that sign the delivery, the current one first: each adds its signature to the
   * `webhook-signature` header (space-separated, as Standard Webhooks allows), so a receiver still
   * holding a rotated-out key verifies during the overlap. The legacy `data.hash` uses the current key.
   */
  secrets: string[];
}

export const SERVICE_USER_AGENT = 'PaymentCollectionService-Webhooks/1.0';

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** Settles with `promise`, or rejects with the signal's reason once it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Sends the event; answers the receiver's (2xx) status. */
export async function sendWebhook(target: WebhookTarget, event: StoredEvent, options: { timeoutMs: number; policy: WebhookPolicy }): Promise<number> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const failed = (error: unknown) => {
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs} ms`
        : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
    return new Error(`webhook not delivered: ${reason}`);
  };
  let check: Awaited<ReturnType<typeof checkWebhookUrl>>;
  try {
    check = await abortable(checkWebhookUrl(target.url, options.policy), signal);
  } catch (error) {
    throw failed(error);
  }
  if (!check.ok) throw check.permanent ? new PermanentDeliveryError(check.problem) : new Error(`webhook not delivered: ${check.problem}`);

  const body = signedBody(event, target.secrets[0]!);
  const now = new Date();
  const signature = target.secrets.map((secret) => new Webhook(secret).sign(event.id, now, body)).join(' ');
  // One agent per delivery: its sockets resolve through the guard, and none outlives the delivery.
  const agent = new Agent({ connect: { lookup: guardedLookup(options.policy, check.port) } });
  let response: Response;
  try {
    try {
      response = await fetch(check.url, {
        method: 'POST',
        body,
        redirect: 'manual',
        signal,
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': SERVICE_USER_AGENT,
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
      });
    } catch (error) {
      const refused = causes(error).find((e) => e instanceof RefusedAddressError);
      if (refused) throw new PermanentDeliveryError((refused as Error).message);
      throw failed(error);
    }
    await response.body?.cancel();
  } finally {
    await agent.destroy();
  }
  if (response.status < 200 || response.status > 299) throw new RejectedDeliveryError(response.status);
  return response.status;
}
