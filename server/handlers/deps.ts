import type { Db } from '../store/db.js';

/** What every handler module is built with. */
export interface HandlerDeps {
  db: Db;
  /** Base of every URL we hand out (payment_url, activation_url, paginator links), without a trailing slash. */
  publicUrl: string;
}
