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
}

export function createDeliverers(db: Executor, mailer: Mailer, options: DelivererOptions): Record<OutboxChannel, Deliverer> {
  return {
    async email(entry: OutboxEntry) {
      const { message, messageId } = entry.payload as { message: EmailMessage; messageId: string };
      await mailer.send({ ...message, messageId } satisfies OutgoingEmail);
    },
    async webhook(entry: OutboxEntry) {
      // The URL and key current at delivery: a business that moves its endpoint gets its retries there.
      const target = await findWebhook(db, entry.business_id);
      if (!target) throw new PermanentDeliveryError('the business no longer has a webhook URL');
      await sendWebhook(target, entry.payload as StoredEvent, { timeoutMs: options.webhookTimeoutMs, serviceUrls: options.serviceUrls });
    },
  };
}
