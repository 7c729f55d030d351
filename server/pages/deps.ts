import type { OutboxSignal } from '../handlers/deps.js';
import type { PaymentProvider } from '../payments/provider.js';
import type { Db } from '../store/db.js';
import type { PageLimiter } from './limits.js';
import type { PageKeys } from './signing.js';

export interface PageDeps {
  db: Db;
  provider: PaymentProvider;
  publicUrl: string;
  outbox: OutboxSignal;
  /** Keys derived from the page signing key (server/pages/signing.ts). */
  pageKeys: PageKeys;
  /** Attempts per client address, link and card (server/pages/limits.ts). */
  pageLimiter: PageLimiter;
}
