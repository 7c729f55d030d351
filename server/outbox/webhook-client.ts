// Delivers one signed event to a business's webhook URL. A 2xx is success; anything else, a timeout
// or a refused connection is an error the worker retries. Redirects are not followed: the business
// registered this URL, not wherever it points to. Where the URL may lead is webhook-target.ts's call,
// made before the request and again by the socket's own name lookup.
import { createRequire } from 'node:module';
import type { Response } from 'undici';
import type { Webhook } from 'standardwebhooks';
import { signedBody, type StoredEvent } from './messages.js';
import { checkWebhookUrl, guardedLookup, RefusedAddressError, type WebhookPolicy } from './webhook-target.js';

/** undici, loaded with the first delivery: an instance that sends no webhooks never pays for it. */
let undici: typeof import('undici') | undefined;
export function loadUndici(): typeof import('undici') {
  return (undici ??= createRequire(import.meta.url)('undici') as typeof import('undici'));
}

/** standardwebhooks' signer, loaded with the first delivery as undici is. */
let WebhookSigner: typeof Webhook | undefined;
export function loadSigner(): typeof Webhook {
  return (WebhookSigner ??= (createRequire(import.meta.url)('standardwebhooks') as typeof import('standardwebhooks')).Webhook);
}

/**
 * A failed attempt. Its message is what the business reads (the attempt's `error` in /api/events,
 * `outbox.last_error`); `detail`, what happened exactly, goes to the server log only.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly detail = message,
  ) {
    super(message);
  }
}

/** A failure that trying again cannot mend (the URL is refused, the endpoint is gone): the entry is given up. */
export class PermanentDeliveryError extends DeliveryError {}

/** The receiver answered, with a status other than 2xx. */
export class RejectedDeliveryError extends DeliveryError {
  constructor(readonly status: number) {
    super(`webhook answered HTTP ${status}`);
  }
}

/**
 * What a business is told about a failed attempt: a broad category, never the socket's own words.
 * "ECONNREFUSED" against "HTTP 404" against "does not match the HTTP/1.1 protocol" from a server on
 * another port, with how long each took, would map a host's open ports and what runs on them.
 */
export const ATTEMPT_ERRORS = {
  timeout: (ms: number) => `webhook not delivered: timeout (no answer within ${ms} ms)`,
  refused: 'webhook not delivered: connection refused',
  tls: 'webhook not delivered: TLS error',
  failed: 'webhook not delivered: connection failed',
  notFound: 'webhook not delivered: host not found',
  notAllowed: 'webhook not delivered: address not allowed',
} as const;

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL', 'ENONAME']);
// OpenSSL's certificate verdicts and Node's TLS and SSL errors.
const TLS_CODE = /^(?:ERR_TLS_|ERR_SSL_|ERR_OSSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH$)/;

/** The category of a failed request, read from the error and its causes. */
function categoryOf(error: unknown, timeoutMs: number): string {
  for (const cause of causes(error)) {
    const code = (cause as { code?: unknown }).code;
    if ((cause as Error).name === 'TimeoutError' || TIMEOUT_CODES.has(String(code))) return ATTEMPT_ERRORS.timeout(timeoutMs);
    if (code === 'ECONNREFUSED') return ATTEMPT_ERRORS.refused;
    if (NOT_FOUND_CODES.has(String(code))) return ATTEMPT_ERRORS.notFound;
    if (typeof code === 'string' && TLS_CODE.test(code)) return ATTEMPT_ERRORS.tls;
  }
  return ATTEMPT_ERRORS.failed;
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
    const detail =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs} ms`
        : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
    return new DeliveryError(categoryOf(error, options.timeoutMs), `webhook not delivered: ${detail}`);
  };
  let check: Awaited<ReturnType<typeof checkWebhookUrl>>;
  try {
    check = await abortable(checkWebhookUrl(target.url, options.policy), signal);
  } catch (error) {
    throw failed(error);
  }
  if (!check.ok) {
    // Only a name that does not resolve now is not permanent; the rest are refusals of the URL.
    if (!check.permanent) throw new DeliveryError(ATTEMPT_ERRORS.notFound, check.problem);
    throw new PermanentDeliveryError(ATTEMPT_ERRORS.notAllowed, check.problem);
  }

  const now = new Date();
  let body: string;
  let signature: string;
  try {
    body = signedBody(event, target.secrets[0]!);
    const Signer = loadSigner();
    signature = target.secrets.map((secret) => new Signer(secret).sign(event.id, now, body)).join(' ');
  } catch (error) {
    // A key the signer cannot read (one stored by hand, not made by the service): the business is told
    // the attempt failed, as for any other cause on our side; the operator's log says why.
    throw new DeliveryError(ATTEMPT_ERRORS.failed, `webhook not signed: ${(error as Error).message}`);
  }
  // One agent per delivery: its sockets resolve through the guard, and none outlives the delivery.
  const { Agent, fetch } = loadUndici();
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
      if (refused) throw new PermanentDeliveryError(ATTEMPT_ERRORS.notAllowed, (refused as Error).message);
      throw failed(error);
    }
    await response.body?.cancel();
  } finally {
    await agent.destroy();
  }
  if (response.status < 200 || response.status > 299) throw new RejectedDeliveryError(response.status);
  return response.status;
}
