// The stand-in's HTML: a Checkout Session's hosted page (plain forms, no JavaScript, usable by a
// person and by a headless browser through its labels) and the control page of /_standin/.
import type Stripe from 'stripe';
import { Html, html } from './html.js';
import { FPX_BANKS, TEST_CARDS } from './cards.js';
import { FIELD_MAX_LENGTH, type FieldErrors, type FormValues, type PayerField, type Submission } from './checkout.js';
import type { StripeEventRecord } from './events.js';
import { money } from './money.js';
import type { Account, SessionLine } from './state.js';

const STYLE = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f8fa;color:#1a1f36;padding:16px}
main{max-width:560px;margin:16px auto;background:#fff;border-radius:8px;padding:24px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
main.wide{max-width:1100px}
h1{font-size:1.3rem;margin:0 0 4px}.amount{font-size:2rem;font-weight:700;margin:4px 0 12px}
.muted{color:#5f6b7a;font-size:.9rem}.test{display:inline-block;background:#ffde92;color:#5c3b00;border-radius:4px;padding:0 6px;font-size:.8rem;font-weight:600}
form{display:grid;gap:16px;margin-top:16px}fieldset{border:1px solid #d5dbe1;border-radius:8px;padding:12px 16px;display:grid;gap:10px}
legend{font-weight:700;padding:0 4px}label{display:grid;gap:4px;font-weight:600;font-size:.95rem}
input,select{font:inherit;font-weight:400;padding:8px 10px;border:1px solid #c0c8d2;border-radius:6px;width:100%}
[aria-invalid=true]{border-color:#c62828}.row{display:grid;grid-template-columns:1fr 1fr;gap:10px}
button{font:inherit;font-weight:600;padding:10px;border:0;border-radius:6px;background:#635bff;color:#fff;cursor:pointer}
button.secondary{background:#e3e8ee;color:#1a1f36}button.danger{background:#c62828}
.buttons{display:flex;flex-wrap:wrap;gap:8px}.error{color:#c62828;font-weight:400;font-size:.9rem}
.alert{background:#fdecea;color:#8e1c1c;border-radius:6px;padding:10px}
table{border-collapse:collapse;width:100%;font-size:.85rem}th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #e3e8ee;vertical-align:top}
td form{display:inline;margin:0}td button{padding:2px 8px;font-size:.8rem}code{font-size:.85em;overflow-wrap:anywhere}
@media (max-width:420px){main{padding:16px}.row{grid-template-columns:1fr}}
`;

function layout(title: string, body: Html, wide = false): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main${wide ? new Html(' class="wide"') : ''}>
${body}
</main>
</body>
</html>
`.value;
}

function field(
  id: PayerField,
  label: string,
  options: { errors: FieldErrors; value?: string; type?: string; autocomplete: string; inputmode?: string; placeholder?: string; required?: boolean },
): Html {
  const error = options.errors[id];
  return html`<label for="${id}">${label}
<input id="${id}" name="${id}" type="${options.type ?? 'text'}" autocomplete="${options.autocomplete}" maxlength="${FIELD_MAX_LENGTH[id]}"${
    options.inputmode ? html` inputmode="${options.inputmode}"` : ''
  }${options.placeholder ? html` placeholder="${options.placeholder}"` : ''}${options.required === false ? '' : new Html(' required')} value="${options.value ?? ''}"${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''
  }>
${error ? html`<span class="error" id="${id}-error">${error}</span>` : ''}</label>`;
}

function cardFields(errors: FieldErrors, values: FormValues): Html {
  return html`${field('cardNumber', 'Card number', { errors, autocomplete: 'cc-number', inputmode: 'numeric', placeholder: '1234 1234 1234 1234' })}
<div class="row">${field('cardExpiry', 'Expiration (MM / YY)', { errors, autocomplete: 'cc-exp', placeholder: 'MM / YY' })}${field('cardCvc', 'CVC', {
    errors,
    autocomplete: 'cc-csc',
    inputmode: 'numeric',
  })}</div>
${field('billingName', 'Cardholder name', { errors, autocomplete: 'cc-name', value: values.billingName })}`;
}

function testCardsHelp(): Html {
  const described: Record<string, string> = {
    '4242424242424242': 'Visa: succeeds',
    '5555555555554444': 'Mastercard: succeeds',
    '4000000000000002': 'declined (generic_decline)',
    '4000000000009995': 'declined (insufficient_funds)',
    '4000000000000069': 'declined (expired_card)',
    '4000000000000341': 'saves, but every charge declines',
    '4000000000005126': 'succeeds, but its refunds fail',
  };
  return html`<details><summary>Test cards</summary>
<p class="muted">Any future expiry and any CVC. A number that is no test card is declined, as in Stripe's test mode.</p>
<table>${Object.keys(TEST_CARDS)
    .filter((number) => number in described)
    .map((number) => html`<tr><td><code>${number}</code></td><td>${described[number]}</td></tr>`)}</table>
</details>`;
}

function heading(session: Stripe.Checkout.Session, lines: SessionLine[]): Html {
  if (session.mode === 'setup') return html`<h1>Save your card</h1><p class="muted">It will be kept for later payments.</p>`;
  const [first, ...more] = lines;
  return html`<h1>${first?.name ?? 'Payment'}${more.length > 0 ? ` and ${more.length} more` : ''}</h1>
${first?.description && more.length === 0 ? html`<p class="muted">${first.description}</p>` : ''}
<p class="amount">${money(session.amount_total ?? 0, session.currency ?? 'usd')}</p>
${
  more.length > 0
    ? html`<table>${lines.map(
        (line) =>
          html`<tr><td>${line.name}${line.quantity > 1 ? ` × ${line.quantity}` : ''}</td><td>${money(line.unitAmount * line.quantity, session.currency!)}</td></tr>`,
      )}</table>`
    : ''
}`;
}

/** A session's hosted page: what is paid or saved, and a form for each way the session offers. */
export function checkoutPage(session: Stripe.Checkout.Session, lines: SessionLine[], knownEmail: string | undefined, submission?: Submission): string {
  const state: { errors: FieldErrors; values: FormValues; alert?: string } = submission && !submission.done ? submission : { errors: {}, values: {} };
  const { errors, values } = state;
  const types = session.payment_method_types;
  const payLabel = `Pay ${money(session.amount_total ?? 0, session.currency ?? 'usd')}`;
  const cancel = session.cancel_url ? html`<p><a href="${session.cancel_url}">Cancel and go back</a></p>` : '';
  const outcome = (method: string, value: string, label: string) =>
    html`<button type="submit" name="pay" value="${method}:${value}" formnovalidate>${label}</button>`;
  const body = html`<p><span class="test">TEST MODE</span> <span class="muted">Stripe stand-in</span></p>
${heading(session, lines)}
${state.alert ? html`<p class="alert" role="alert">${state.alert}</p>` : ''}
<form method="post" action="/c/pay/${session.id}">
${knownEmail ? html`<p class="muted">${session.mode === 'setup' ? 'Saving for' : 'Paying as'} ${knownEmail}</p>` : field('email', 'Email', { errors, type: 'email', autocomplete: 'email', value: values.email })}
${
  types.includes('card')
    ? html`<fieldset><legend>Card</legend>
${cardFields(errors, values)}
<button type="submit" name="pay" value="card">${session.mode === 'setup' ? 'Save card' : payLabel}</button>
${testCardsHelp()}
</fieldset>`
    : ''
}
${
  types.includes('fpx')
    ? html`<fieldset><legend>FPX</legend>
<label for="bank">Bank
<select id="bank" name="bank"${errors.bank ? html` aria-invalid="true" aria-describedby="bank-error"` : ''}>
<option value="">Select your bank</option>
${Object.entries(FPX_BANKS).map(([code, name]) => html`<option value="${code}"${values.bank === code ? new Html(' selected') : ''}>${name}</option>`)}
</select>
${errors.bank ? html`<span class="error" id="bank-error">${errors.bank}</span>` : ''}</label>
<p class="muted">In test mode the bank's page is these buttons.</p>
<div class="buttons">${outcome('fpx', 'succeed', 'Authorize')}${outcome('fpx', 'later', 'Authorize - the bank confirms later')}${outcome('fpx', 'fail', 'Fail')}</div>
</fieldset>`
    : ''
}
${
  types.includes('grabpay')
    ? html`<fieldset><legend>GrabPay</legend>
<p class="muted">In test mode GrabPay's page is these buttons.</p>
<div class="buttons">${outcome('grabpay', 'succeed', 'Authorize')}${outcome('grabpay', 'fail', 'Fail')}</div>
</fieldset>`
    : ''
}
</form>
${cancel}`;
  return layout(session.mode === 'setup' ? 'Save your card' : payLabel, body);
}

/** What a payer sees on a session that can no longer be used. */
export function closedPage(session: Stripe.Checkout.Session): string {
  const text =
    session.status === 'expired'
      ? { title: 'This Checkout Session has expired', detail: 'Go back and start again.' }
      : { title: 'This Checkout Session is complete', detail: 'Nothing more to do here.' };
  return layout(text.title, html`<p><span class="test">TEST MODE</span></p><h1>${text.title}</h1><p class="muted">${text.detail}</p>`);
}

export function notFoundPage(): string {
  return layout('Not found', html`<h1>Not found</h1><p class="muted">There is no Checkout Session at this address.</p>`);
}

function eventRows(records: StripeEventRecord[]): Html {
  return html`${[...records].reverse().map(({ event, deliveries }) => {
    const last = deliveries.at(-1);
    return html`<tr><td>${new Date(event.created * 1000).toISOString().slice(11, 19)}</td><td><code>${event.id}</code></td><td>${event.type}</td><td><code>${'id' in event.data.object ? event.data.object.id : event.data.object.object}</code></td>
<td>${last ? `${last.status ?? last.error ?? ''} (${deliveries.length}×)` : 'not sent'}</td>
<td><form method="post" action="/_standin/events/${event.id}/deliver"><button type="submit" class="secondary">Deliver</button></form></td></tr>`;
  })}`;
}

/** /_standin/: every account's sessions, payment intents (with the bank's answer for processing ones), payouts (run, paid, failed by hand) and events. */
export function controlPage(
  accounts: Account[],
  events: (account: Account) => StripeEventRecord[],
  settings: { hold: boolean; target: (account: Account) => string },
): string {
  const sections = accounts.map((account) => {
    const sessions = account.all('checkout.session').reverse();
    const intents = account.all('payment_intent').reverse();
    const payouts = account.all('payout').reverse();
    return html`<h2>${account.id}</h2>
<p class="muted">API version ${account.apiVersion ?? '(none yet)'} · events forwarded to ${settings.target(account)}</p>
<h3>Checkout Sessions</h3>
<table><tr><th>id</th><th>mode</th><th>status</th><th>payment</th><th>amount</th></tr>
${sessions.map(
  (session) =>
    html`<tr><td>${session.status === 'open' ? html`<a href="/c/pay/${session.id}"><code>${session.id}</code></a>` : html`<code>${session.id}</code>`}</td><td>${session.mode}</td><td>${session.status}</td><td>${session.payment_status}</td><td>${session.amount_total === null ? '' : money(session.amount_total, session.currency!)}</td></tr>`,
)}</table>
<h3>PaymentIntents</h3>
<table><tr><th>id</th><th>status</th><th>amount</th><th>methods</th><th></th></tr>
${intents.map(
  (intent) =>
    html`<tr><td><code>${intent.id}</code></td><td>${intent.status}</td><td>${money(intent.amount, intent.currency)}</td><td>${intent.payment_method_types.join(', ')}</td><td>${
      intent.status === 'processing'
        ? html`<form method="post" action="/_standin/payment_intents/${intent.id}/settle"><input type="hidden" name="outcome" value="succeeded"><button type="submit">Settle: succeeded</button></form>
<form method="post" action="/_standin/payment_intents/${intent.id}/settle"><input type="hidden" name="outcome" value="failed"><button type="submit" class="danger">Settle: failed</button></form>`
        : ''
    }</td></tr>`,
)}</table>
<h3>Payouts</h3>
<form method="post" action="/_standin/accounts/${account.id}/payouts"><label>Run an automatic payout as of <input type="date" name="as_of" required></label>
<label><input type="checkbox" name="hold" value="true"> hold it in transit</label> <button type="submit">Run payout</button></form>
<table><tr><th>id</th><th>status</th><th>amount</th><th>arrival</th><th></th></tr>
${payouts.map(
  (payout) =>
    html`<tr><td><code>${payout.id}</code></td><td>${payout.status}</td><td>${money(payout.amount, payout.currency)}</td><td>${new Date(payout.arrival_date * 1000).toISOString().slice(0, 10)}</td><td>${
      payout.status === 'in_transit' ? html`<form method="post" action="/_standin/payouts/${payout.id}/pay"><button type="submit">Pay</button></form>` : ''
    }${
      ['in_transit', 'paid'].includes(payout.status)
        ? html`<form method="post" action="/_standin/payouts/${payout.id}/fail"><button type="submit" class="danger">Fail: the bank returns it</button></form>`
        : ''
    }</td></tr>`,
)}</table>
<h3>Events</h3>
<table><tr><th>time</th><th>id</th><th>type</th><th>object</th><th>delivery</th><th></th></tr>${eventRows(events(account))}</table>`;
  });
  return layout(
    'Stripe stand-in',
    html`<h1>Stripe stand-in</h1>
<p class="muted">Webhooks ${settings.hold ? 'held: deliver them by hand' : 'forwarded as they happen'}. JSON: <a href="/_standin/events">events</a> · <a href="/_standin/violations">violations</a> · <a href="/_standin/requests">requests</a></p>
${sections.length > 0 ? sections : html`<p>No requests yet.</p>`}`,
    true,
  );
}
