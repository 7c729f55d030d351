import type { Logger } from '../logger.js';
import type { MasterKey } from '../secrets/master-key.js';
import { SecretUnreadableError } from '../secrets/seal.js';
import type { Executor } from '../store/executor.js';
import { findDeliveryTarget, firstEndpointId } from '../store/webhook-endpoints.js';
import type { OutboxChannel, OutboxEntry } from '../store/outbox.js';
import { CircuitBreakers, type BreakerSettings, type Outcome } from './circuit-breaker.js';
import type { Mailer, OutgoingEmail } from './mailer.js';
import type { EmailMessage, StoredEvent } from './messages.js';
import { PermanentDeliveryError, sendWebhook } from './webhook-client.js';
import type { WebhookPolicy } from './webhook-target.js';
import { DeferredDelivery, type Deliverer } from './worker.js';

export interface DelivererOptions {
  webhookTimeoutMs: number;
  /** Where webhooks may go (never the service's own addresses). */
  webhookPolicy: WebhookPolicy;
  breaker: BreakerSettings;
  logger?: Pick<Logger, 'warn'>;
  /** Opens the businesses' webhook keys, sealed at rest. */
  secretsKey: MasterKey;
}

async function webhookTarget(db: Executor, entry: OutboxEntry, key: MasterKey) {
  try {
    // An entry without an endpoint was queued by a version before endpoints: the business's first one.
    const endpointId = entry.endpoint_id ?? (await firstEndpointId(db, entry.business_id));
    return endpointId === undefined ? undefined : await findDeliveryTarget(db, endpointId, key);
  } catch (error) {
    // Retried rather than given up: the usual cause is a changed SECRETS_KEY, which an operator can put back.
    if (error instanceof SecretUnreadableError)
      throw new Error(`webhook not delivered: the webhook key cannot be decrypted with the configured key: ${error.message}`);
    throw error;
  }
}

export function createDeliverers(db: Executor, mailer: Mailer, options: DelivererOptions): Record<OutboxChannel, Deliverer> {
  const breakers = new CircuitBreakers(options.breaker);
  return {
    async email(entry: OutboxEntry) {
      const { message, messageId } = entry.payload as { message: EmailMessage; messageId: string };
      await mailer.send({ ...message, messageId } satisfies OutgoingEmail);
    },
    async webhook(entry: OutboxEntry) {
      // The URL and keys current at delivery: an endpoint that moves gets its retries there.
      const target = await webhookTarget(db, entry, options.secretsKey);
      if (!target) throw new PermanentDeliveryError('the webhook endpoint no longer exists');
      if (!target.enabled) throw new PermanentDeliveryError('the webhook endpoint is disabled');
      const endpoint = `${entry.business_id} ${entry.endpoint_id} ${target.url}`;
      const admission = breakers.admit(endpoint);
      if (!admission.allowed) {
        throw new DeferredDelivery(admission.retryAt, `the endpoint failed ${options.breaker.threshold} deliveries in a row; waiting for its cool-down`, true);
      }
      let outcome: Outcome = 'neither';
      try {
        const status = await sendWebhook(target, entry.payload as StoredEvent, { timeoutMs: options.webhookTimeoutMs, policy: options.webhookPolicy });
        outcome = 'success';
        return status;
      } catch (error) {
        if (!(error instanceof PermanentDeliveryError)) outcome = 'failure';
        throw error;
      } finally {
        if (breakers.settle(endpoint, admission, outcome)) {
          options.logger?.warn(
            { business_id: entry.business_id, webhook_origin: new URL(target.url).origin, cool_down_ms: options.breaker.coolDownMs },
            admission.probe
              ? 'webhook endpoint still failing; paused again'
              : `webhook endpoint paused after ${options.breaker.threshold} failed deliveries in a row`,
          );
        }
      }
    },
  };
}
