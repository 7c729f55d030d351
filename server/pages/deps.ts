import type { OutboxSignal } from '../handlers/deps.js';
import type { PaymentProvider } from '../payments/provider.js';
import type { Db } from '../store/db.js';

export interface PageDeps {
  db: Db;
  provider: PaymentProvider;
  publicUrl: string;
  outbox: OutboxSignal;
}
