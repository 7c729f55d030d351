// The card form shared by the pay pages and the activation page: its fields, their labels (which
// assistive technology and our browser tests rely on), and reading a submission.
import { randomBytes } from 'node:crypto';
import { checkCard, type Card } from '../payments/cards.js';
import { SANDBOX_TEST_CARDS } from '../payments/sandbox.js';
import { html, type Html } from '../../shared/html.js';

export type FormErrors = Partial<Record<'name' | 'email' | 'amount' | 'card_number' | 'expiry' | 'cvc', string>>;
export type FormValues = Partial<Record<'name' | 'email' | 'amount', string>>;

export interface FormState {
  csrf: string;
  attemptId: string;
  values: FormValues;
  errors: FormErrors;
  /** A message about the whole attempt, e.g. a decline. */
  alert?: string;
}

export function newAttemptId(): string {
  return randomBytes(16).toString('hex');
}

export function isAttemptId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{32}$/.test(value);
}

export function text(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value.trim() : '';
}

interface FieldOptions {
  id: keyof FormErrors;
  label: string;
  value?: string;
  errors: FormErrors;
  attributes: Html;
}

export function field({ id, label, value, errors, attributes }: FieldOptions): Html {
  const error = errors[id];
  return html`<label for="${id}">${label}
<input id="${id}" name="${id}" value="${value ?? ''}" ${attributes}${error ? html` aria-invalid="true" aria-describedby="${id}_error"` : ''}>
${error ? html`<span class="error" id="${id}_error">${error}</span>` : ''}</label>`;
}

/** Card number, expiry and CVC: never echoed back into the page after a submit. */
export function cardFields(errors: FormErrors): Html {
  return html`${field({ id: 'card_number', label: 'Card number', errors, attributes: html`inputmode="numeric" autocomplete="cc-number" required maxlength="23"` })}
<div class="row">
${field({ id: 'expiry', label: 'Expiry (MM/YY)', errors, attributes: html`autocomplete="cc-exp" placeholder="MM/YY" required maxlength="7"` })}
${field({ id: 'cvc', label: 'CVC', errors, attributes: html`inputmode="numeric" autocomplete="cc-csc" required maxlength="4"` })}
</div>`;
}

export function hiddenFields(state: FormState): Html {
  return html`<input type="hidden" name="csrf_token" value="${state.csrf}">
<input type="hidden" name="attempt_id" value="${state.attemptId}">`;
}

export function alertBox(message: string | undefined): Html {
  return message ? html`<p class="alert" role="alert">${message}</p>` : html``;
}

export function sandboxCards(): Html {
  const rows = Object.entries(SANDBOX_TEST_CARDS).map(([number, card]) => html`<tr><td><code>${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code></td><td>${card.description}</td></tr>`);
  return html`<details><summary>Sandbox test cards</summary>
<p class="muted">Any future expiry date and any CVC of the right length.</p>
<table>${rows}</table></details>`;
}

/** Checks the card fields of a submission; the card is only returned when all of them are valid. */
export function readCard(body: Record<string, unknown>, errors: FormErrors): Card | undefined {
  const checked = checkCard({ number: text(body, 'card_number'), expiry: text(body, 'expiry'), cvc: text(body, 'cvc') });
  if (checked.ok) return checked.card;
  if (checked.errors.number) errors.card_number = checked.errors.number;
  if (checked.errors.expiry) errors.expiry = checked.errors.expiry;
  if (checked.errors.cvc) errors.cvc = checked.errors.cvc;
  return undefined;
}

/** Control characters (NUL among them: PostgreSQL cannot store it) and unpaired surrogates. */
const UNSTORABLE = /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function readName(body: Record<string, unknown>, errors: FormErrors): string {
  const name = text(body, 'name');
  if (!name) errors.name = 'Enter your name.';
  else if (name.length > 100) errors.name = 'The name must not be longer than 100 characters.';
  else if (UNSTORABLE.test(name)) errors.name = 'The name contains characters that are not allowed.';
  return name;
}
