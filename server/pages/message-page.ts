import { html } from '../html.js';
import type { MessageKey } from '../i18n/index.js';

/**
 * What a payer is told about any decline. Decline reasons told apart help whoever tests stolen cards;
 * the precise reason stays in the payment record.
 */
export const CARD_DECLINED: MessageKey = 'form.declined';

/** A page that only explains something: unknown, removed, paid or expired things. */
export function messagePage(heading: string, message: string) {
  return html`<h1>${heading}</h1><p class="muted">${message}</p>`;
}
