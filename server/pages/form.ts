// The card form shared by the pay pages and the activation page: its fields, their labels (which
// assistive technology and our browser tests rely on), and reading a submission.
import { randomBytes } from 'node:crypto';
import { EMAIL_MAX_LENGTH } from '../domain/email.js';
import { EXPIRY_MAX_LENGTH, checkCard, type Card } from '../acquirers/cards.js';
import { SANDBOX_TEST_CARDS } from '../acquirers/sandbox.js';
import { html, type Html } from '../html.js';
import { translator, type MessageKey, type Translator } from '../i18n/index.js';

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

const TOO_LONG: Record<FieldName, [MessageKey, Record<string, number>?]> = {
  name: ['error.name_long', { max: FIELD_MAX_LENGTH.name }],
  email: ['error.email_long', { max: FIELD_MAX_LENGTH.email }],
  amount: ['error.amount_format'],
  card_number: ['error.card_number'],
  expiry: ['error.expiry_format'],
  cvc: ['error.cvc_long'],
};

const ENGLISH = translator('en');

/**
 * One submitted field, trimmed; '' when absent or not text. A value over the field's maximum is a
 * form error and reads as '', so it is never parsed.
 */
export function readField(body: Record<string, unknown>, name: FieldName, errors: FormErrors, tr: Translator = ENGLISH): string {
  const value = body[name];
  if (typeof value !== 'string') return '';
  if (value.length > FIELD_MAX_LENGTH[name]) {
    errors[name] = tr.t(...TOO_LONG[name]);
    return '';
  }
  return value.trim();
}

/** Several fields at once, each through `readField`. */
export function readFields<N extends FieldName>(
  body: Record<string, unknown>,
  names: readonly N[],
  errors: FormErrors,
  tr: Translator = ENGLISH,
): Record<N, string> {
  return Object.fromEntries(names.map((name) => [name, readField(body, name, errors, tr)])) as Record<N, string>;
}

interface FieldOptions {
  id: keyof FormErrors;
  label: string;
  value?: string;
  errors: FormErrors;
  attributes: Html;
  /** A hint under the input, which describes it (its id is `<id>_hint`). */
  hint?: string;
}

/**
 * A labelled input; its hint and its error, when it has them, are tied to it (aria-describedby, and
 * aria-invalid for the error). They sit beside the label, not in it, so the field's name is its label
 * alone and a screen reader reads the error once, as the field's description.
 */
export function field({ id, label, value, errors, attributes, hint }: FieldOptions): Html {
  const error = errors[id];
  const described = [hint ? `${id}_hint` : undefined, error ? `${id}_error` : undefined].filter(Boolean).join(' ');
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${id}" value="${value ?? ''}" ${attributes}${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}>
${hint ? html`<span class="muted hint" id="${id}_hint">${hint}</span>` : ''}${error ? html`<span class="error" id="${id}_error">${error}</span>` : ''}</div>`;
}

/**
 * Card number, expiry and CVC: never echoed back into the page after a submit. Each asks a phone for
 * its digit keypad (`inputmode="numeric"`; an expiry typed `1239`, without its slash, is read as 12/39)
 * and names what it holds for autofill.
 */
export function cardFields(errors: FormErrors, tr: Translator = ENGLISH): Html {
  return html`${field({ id: 'card_number', label: tr.t('field.card_number'), errors, attributes: html`inputmode="numeric" autocomplete="cc-number" required maxlength="${FIELD_MAX_LENGTH.card_number}"` })}
<div class="row">
${field({ id: 'expiry', label: tr.t('field.expiry'), errors, attributes: html`inputmode="numeric" autocomplete="cc-exp" placeholder="${tr.t('field.expiry_placeholder')}" required maxlength="${FIELD_MAX_LENGTH.expiry}"` })}
${field({ id: 'cvc', label: tr.t('field.cvc'), errors, attributes: html`inputmode="numeric" autocomplete="cc-csc" required maxlength="${FIELD_MAX_LENGTH.cvc}"` })}
</div>`;
}

const FIELD_ORDER: FieldName[] = ['amount', 'name', 'email', 'card_number', 'expiry', 'cvc'];

/**
 * After a failed submit: what is wrong, each error a link to its field. `autofocus` moves focus here
 * without JavaScript, so a screen reader announces the summary first.
 */
export function errorSummary(errors: FormErrors, tr: Translator): Html {
  const named = FIELD_ORDER.filter((name) => errors[name]);
  if (named.length === 0) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1" autofocus aria-labelledby="error_summary_title">
<h2 id="error_summary_title">${tr.t('form.fix')}</h2>
<ul>${named.map((name) => html`<li><a href="#${name}">${errors[name]}</a></li>`)}</ul>
</div>`;
}

export function hiddenFields(state: FormState): Html {
  return html`<input type="hidden" name="csrf_token" value="${state.csrf}">
<input type="hidden" name="attempt_id" value="${state.attemptId}">`;
}

export function alertBox(message: string | undefined): Html {
  return message ? html`<p class="alert" role="alert">${message}</p>` : html``;
}

/**
 * The sandbox's test cards in the payer's language, by number (`SANDBOX_TEST_CARDS` words them in
 * English for docs/integrating.md); a card added there without a message here shows its English.
 */
const SANDBOX_CARD_MESSAGES: Record<string, MessageKey> = {
  '4242424242424242': 'sandbox.card.visa_succeeds',
  '5555555555554444': 'sandbox.card.mastercard_succeeds',
  '378282246310005': 'sandbox.card.amex_succeeds',
  '4000000000000002': 'sandbox.card.visa_declined',
  '4000000000009995': 'sandbox.card.visa_insufficient_funds',
  '4000000000000119': 'sandbox.card.visa_processing_error',
  '4000000000000341': 'sandbox.card.visa_charge_declined',
  '4000000000000069': 'sandbox.card.visa_expires',
  '4000000000005126': 'sandbox.card.visa_refunds_fail',
};

export function sandboxCards(tr: Translator = ENGLISH): Html {
  const rows = Object.entries(SANDBOX_TEST_CARDS).map(([number, card]) => {
    const message = SANDBOX_CARD_MESSAGES[number];
    return html`<tr><td><code>${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code></td><td>${message ? tr.t(message) : card.description}</td></tr>`;
  });
  return html`<details><summary>${tr.t('sandbox.summary')}</summary>
<p class="muted">${tr.t('sandbox.note')}</p>
<table>${rows}</table></details>`;
}

/** Checks the card fields of a submission; the card is only returned when all of them are valid. */
export function readCard(body: Record<string, unknown>, errors: FormErrors, tr: Translator = ENGLISH): Card | undefined {
  const fields = readFields(body, ['card_number', 'expiry', 'cvc'], errors, tr);
  const checked = checkCard({ number: fields.card_number, expiry: fields.expiry, cvc: fields.cvc });
  if (checked.ok) return checked.card;
  // An over-long field read as '' and keeps the error readField gave it. The card checks word their
  // findings in English for the API; the payer reads them in the page's language.
  if (checked.errors.number) errors.card_number ??= tr.t('error.card_number');
  if (checked.errors.expiry) errors.expiry ??= tr.t(checked.errors.expiry === 'The card has expired.' ? 'error.expiry_past' : 'error.expiry_format');
  if (checked.errors.cvc) errors.cvc ??= tr.t('error.cvc', { digits: /\d+/.exec(checked.errors.cvc)?.[0] ?? '3' });
  return undefined;
}

/** Control characters (NUL among them: PostgreSQL cannot store it) and unpaired surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSTORABLE = /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The payer's name, already read with `readField`; records its error. */
export function checkName(name: string, errors: FormErrors, tr: Translator = ENGLISH): string {
  if (errors.name) return name;
  if (!name) errors.name = tr.t('error.name_required');
  else if (UNSTORABLE.test(name)) errors.name = tr.t('error.name_chars');
  return name;
}
