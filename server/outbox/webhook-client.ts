// Delivers one signed event to a business's webhook URL. A 2xx is success; anything else, a timeout
// or a refused connection is an error the worker retries. Redirects are not followed: the business
// registered this URL, not wherever it points to.
import { Webhook } from 'standardwebhooks';
import { signedBody, type StoredEvent } from './messages.js';

export class PermanentDeliveryError extends Error {}

export interface WebhookTarget {
  url: string;
  secret: string;
}

export const SERVICE_USER_AGENT = 'PaymentCollectionService-Webhooks/1.0';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

/** True when `url` is the service's own address (its public URL or the port it listens on locally). */
export function pointsAtService(url: string, serviceUrls: string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  return serviceUrls.some((service) => {
    const own = new URL(service);
    if (own.hostname === target.hostname && port(own) === port(target)) return true;
    return LOOPBACK_NAMES.has(own.hostname) && LOOPBACK_NAMES.has(target.hostname) && port(own) === port(target);
  });
}

export function checkWebhookUrl(url: string, serviceUrls: string[]): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'the webhook URL is not a valid absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'the webhook URL must use http or https';
  if (pointsAtService(url, serviceUrls)) return 'the webhook URL points at this service itself';
  return null;
}

export async function sendWebhook(target: WebhookTarget, event: StoredEvent, options: { timeoutMs: number; serviceUrls: string[] }): Promise<void> {
  const problem = checkWebhookUrl(target.url, options.serviceUrls);
  if (problem) throw new PermanentDeliveryError(problem);
  const body = signedBody(event, target.secret);
  const now = new Date();
  const signature = new Webhook(target.secret).sign(event.id, now, body);
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'POST',
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': SERVICE_USER_AGENT,
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
    });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
    throw new Error(`webhook not delivered: ${reason}`);
  }
  await response.body?.cancel();
  if (response.status < 200 || response.status > 299) throw new Error(`webhook answered HTTP ${response.status}`);
}
