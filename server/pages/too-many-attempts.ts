// The payer pages' 429: what happened and when to come back, with Retry-After, in the payer's language.
// What is counted, and how much is too many, is server/rate-limits/payer-forms.ts.
import type Koa from 'koa';
import type { MessageKey, Translator } from '../i18n/index.js';
import { payerTranslator, renderPayerPage } from './frame.js';
import { messagePage } from './message-page.js';

function answer429(koa: Koa.Context, retryAfter: number, heading: MessageKey, message: MessageKey, tr: Translator): void {
  koa.set('Retry-After', String(retryAfter));
  const title = tr.t(heading);
  renderPayerPage(koa, { status: 429, title, body: messagePage(title, tr.t(message, { minutes: Math.ceil(retryAfter / 60) })), tr });
}

/** The 429 page: what happened and when to come back, with Retry-After. */
export function tooManyAttempts(koa: Koa.Context, retryAfter: number, tr: Translator = payerTranslator(koa)): void {
  answer429(koa, retryAfter, 'limit.attempts.heading', 'limit.attempts.message', tr);
}

/** The 429 page of a link whose checkouts on the acquirer's page are all taken by payers still on them. */
export function tooManyCheckouts(koa: Koa.Context, retryAfter: number, tr: Translator = payerTranslator(koa)): void {
  answer429(koa, retryAfter, 'limit.checkouts.heading', 'limit.checkouts.message', tr);
}
