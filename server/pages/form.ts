// The card form shared by the pay pages and the activation page: its fields, their labels (which
// assistive technology and our browser tests rely on), and reading a submission.
import { randomBytes } from 'node:crypto';
import { EMAIL_MAX_LENGTH } from '../domain/email.js';
import { EXPIRY_MAX_LENGTH, checkCard, type Card } from '../acquirers/cards.js';
import { SANDBOX_TEST_CARDS } from '../acquirers/sandbox.js';
import { html, type Html } from '../html.js';

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

export type FieldName = keyof FormErrors;

/**
 * The longest value each field may have (each input's maxlength, so a browser never sends more).
 * Anything a visitor sends is capped here before any parsing or pattern sees it.
 */
export const FIELD_MAX_LENGTH: Record<FieldName, number> = {
  name: 100,
  email: EMAIL_MAX_LENGTH,
  amount: 20,
  card_number: 23,
  expiry: EXPIRY_MAX_LENGTH,
  cvc: 4,
};

const TOO_LONG: Record<FieldName, string> = {
  name: `The name must not be longer than ${FIELD_MAX_LENGTH.name} characters.`,
  email: `The email must not be longer than ${FIELD_MAX_LENGTH.email} characters.`,
  amount: 'Enter an amount, for example 25.00.',
  card_number: 'The card number is not valid.',
  expiry: 'Enter the expiry date as MM/YY.',
  cvc: 'The CVC must be 3 or 4 digits.',
};

/**
 * One submitted field, trimmed; '' when absent or not text. A value over the field's maximum is a
 * form error and reads as '', so it is never parsed.
 */
export function readField(body: Record<string, unknown>, name: FieldName, errors: FormErrors): string {
  const value = body[name];
  if (typeof value !== 'string') return '';
  if (value.length > FIELD_MAX_LENGTH[name]) {
    errors[name] = TOO_LONG[name];
    return '';
  }
  return value.trim();
}

/** Several fields at once, each through `readField`. */
export function readFields<N extends FieldName>(body: Record<string, unknown>, names: readonly N[], errors: FormErrors): Record<N, string> {
  return Object.fromEntries(names.map((name) => [name, readField(body, name, errors)])) as Record<N, string>;
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
  return html`${field({ id: 'card_number', label: 'Card number', errors, attributes: html`inputmode="numeric" autocomplete="cc-number" required maxlength="${FIELD_MAX_LENGTH.card_number}"` })}
<div class="row">
${field({ id: 'expiry', label: 'Expiry (MM/YY)', errors, attributes: html`autocomplete="cc-exp" placeholder="MM/YY" required maxlength="${FIELD_MAX_LENGTH.expiry}"` })}
${field({ id: 'cvc', label: 'CVC', errors, attributes: html`inputmode="numeric" autocomplete="cc-csc" required maxlength="${FIELD_MAX_LENGTH.cvc}"` })}
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
  const rows = Object.entries(SANDBOX_TEST_CARDS).map(
    ([number, card]) => html`<tr><td><code>${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code></td><td>${card.description}</td></tr>`,
  );
  return html`<details><summary>Sandbox test cards</summary>
<p class="muted">Any future expiry date and any CVC of the right length.</p>
<table>${rows}</table></details>`;
}

/** Checks the card fields of a submission; the card is only returned when all of them are valid. */
export function readCard(body: Record<string, unknown>, errors: FormErrors): Card | undefined {
  const fields = readFields(body, ['card_number', 'expiry', 'cvc'], errors);
  const checked = checkCard({ number: fields.card_number, expiry: fields.expiry, cvc: fields.cvc });
  if (checked.ok) return checked.card;
  // An over-long field read as '' and keeps the error readField gave it.
  if (checked.errors.number) errors.card_number ??= checked.errors.number;
  if (checked.errors.expiry) errors.expiry ??= checked.errors.expiry;
  if (checked.errors.cvc) errors.cvc ??= checked.errors.cvc;
  return undefined;
}

/** Control characters (NUL among them: PostgreSQL cannot store it) and unpaired surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSTORABLE = /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The payer's name, already read with `readField`; records its error. */
export function checkName(name: string, errors: FormErrors): string {
  if (errors.name) return name;
  if (!name) errors.name = 'Enter your name.';
  else if (UNSTORABLE.test(name)) errors.name = 'The name contains characters that are not allowed.';
  return name;
}
