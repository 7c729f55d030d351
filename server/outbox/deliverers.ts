import type { MasterKey } from '../secrets/master-key.js';
import { SecretUnreadableError } from '../secrets/seal.js';
import type { Executor } from '../store/executor.js';
import { findWebhook } from '../store/businesses.js';
import type { OutboxChannel, OutboxEntry } from '../store/outbox.js';
import type { Mailer, OutgoingEmail } from './mailer.js';
import type { EmailMessage, StoredEvent } from './messages.js';
import { PermanentDeliveryError, sendWebhook } from './webhook-client.js';
import type { Deliverer } from './worker.js';

export interface DelivererOptions {
  webhookTimeoutMs: number;
  /** The service's own addresses: a webhook pointing at one of them is refused. */
  serviceUrls: string[];
  /** Opens the businesses' webhook keys, sealed at rest. */
  secretsKey: MasterKey;
}

async function webhookTarget(db: Executor, businessId: number, key: MasterKey) {
  try {
    return await findWebhook(db, businessId, key);
  } catch (error) {
    // Retried rather than given up: the usual cause is a changed SECRETS_KEY, which an operator can put back.
    if (error instanceof SecretUnreadableError) throw new Error(`webhook not delivered: the webhook key cannot be decrypted with the configured key: ${error.message}`);
    throw error;
  }
}

export function createDeliverers(db: Executor, mailer: Mailer, options: DelivererOptions): Record<OutboxChannel, Deliverer> {
  return {
    async email(entry: OutboxEntry) {
      const { message, messageId } = entry.payload as { message: EmailMessage; messageId: string };
      await mailer.send({ ...message, messageId } satisfies OutgoingEmail);
    },
    async webhook(entry: OutboxEntry) {
      // The URL and key current at delivery: a business that moves its endpoint gets its retries there.
      const target = await webhookTarget(db, entry.business_id, options.secretsKey);
      if (!target) throw new PermanentDeliveryError('the business no longer has a webhook URL');
      await sendWebhook(target, entry.payload as StoredEvent, { timeoutMs: options.webhookTimeoutMs, serviceUrls: options.serviceUrls });
    },
  };
}
