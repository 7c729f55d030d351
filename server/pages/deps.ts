import type { UseCaseContext } from '../usecases/platform/context.js';
import type { PageLimiter } from '../rate-limits/payer-forms.js';
import type { PageKeys } from './signing.js';

/** What the payer pages are built with: the use cases' context, and the pages' own keys and limits. */
export interface PageDeps extends UseCaseContext {
  /** Keys derived from the secrets key for what the pages sign (server/pages/signing.ts). */
  pageKeys: PageKeys;
  /** Attempts per client address, link and card (server/rate-limits/payer-forms.ts). */
  pageLimiter: PageLimiter;
}
