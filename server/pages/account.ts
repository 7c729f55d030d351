// The page behind a one-time account link (the first owner's, one create-user printed, an
// invitation's): its holder sets their name and password, or, with an account already, confirms
// their password, and joins the business. A plain form with the payer pages' CSRF protection; the
// token travels in the form, and the page sends no Referer that could carry it elsewhere.
import type Koa from 'koa';
import { ACCOUNT_SETUP_PATH, CONSOLE_PATH } from '../domain/sessions.js';
import { html, page } from '../html.js';
import { ACCOUNT_LINK_GONE, completeAccountLink, openAccountLink, type OpenLink } from '../usecases/members/accounts.js';
import { csrfToken, csrfValid } from './csrf.js';
import type { PageDeps } from './deps.js';
import { alertBox } from './form.js';
import { setPageSecurityHeaders } from './headers.js';
import { messagePage } from './message-page.js';

type Errors = Partial<Record<'email' | 'name' | 'password' | 'password_confirmation', string>>;

function input(id: keyof Errors, label: string, type: string, errors: Errors, value = '', autocomplete = ''): ReturnType<typeof html> {
  const error = errors[id];
  return html`<label for="${id}">${label}
<input id="${id}" name="${id}" type="${type}" value="${value}" autocomplete="${autocomplete}" required maxlength="200"${error ? html` aria-invalid="true" aria-describedby="${id}_error"` : ''}>
${error ? html`<span class="error" id="${id}_error">${error}</span>` : ''}</label>`;
}

function setupForm(koa: Koa.Context, token: string, opened: OpenLink, errors: Errors, name = '', alert?: string, email = ''): string {
  const { link } = opened;
  const intro = link.purpose === 'invitation' ? `You are invited to join as ${link.role}.` : `Set up your account (${link.role}).`;
  const fields = opened.existingAccount
    ? input('password', 'Your current password', 'password', errors, '', 'current-password')
    : html`${link.email ? '' : input('email', 'Your e-mail', 'email', errors, email, 'email')}
${input('name', 'Your name', 'text', errors, name, 'name')}
${input('password', 'Password (at least 12 characters)', 'password', errors, '', 'new-password')}
${input('password_confirmation', 'Password again', 'password', errors, '', 'new-password')}`;
  return page(
    'Set up your account',
    html`<h1>Set up your account</h1>
<p class="muted">${intro}${link.email ? ` You will sign in as ${link.email}.` : ''}</p>
${alertBox(alert)}
<form method="post" action="${ACCOUNT_SETUP_PATH}">
<input type="hidden" name="csrf_token" value="${csrfToken(koa)}">
<input type="hidden" name="token" value="${token}">
${fields}
<button type="submit">${opened.existingAccount ? 'Join' : 'Save and join'}</button>
</form>`,
  );
}

function gone(koa: Koa.Context): void {
  koa.status = 410;
  koa.body = page('Link not valid', messagePage('This link is not valid', ACCOUNT_LINK_GONE));
}

export function accountSetupPage(deps: PageDeps) {
  return {
    async show(koa: Koa.Context) {
      setPageSecurityHeaders(koa);
      koa.type = 'text/html; charset=utf-8';
      const token = typeof koa.query.token === 'string' ? koa.query.token.slice(0, 100) : '';
      const opened = token ? await openAccountLink(deps, token) : undefined;
      if (!opened) return gone(koa);
      koa.body = setupForm(koa, token, opened, {});
    },
    async save(koa: Koa.Context) {
      setPageSecurityHeaders(koa);
      koa.type = 'text/html; charset=utf-8';
      const body = (koa.request.body ?? {}) as Record<string, unknown>;
      const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, 200) : '');
      const token = text('token');
      const opened = token ? await openAccountLink(deps, token) : undefined;
      if (!opened) return gone(koa);
      if (!csrfValid(koa, body.csrf_token)) {
        koa.status = 403;
        koa.body = setupForm(koa, token, opened, {}, text('name'), 'This form has expired. Please submit it again.', text('email'));
        return;
      }
      const outcome = await completeAccountLink(
        deps,
        token,
        { name: text('name'), password: text('password'), confirmation: text('password_confirmation'), email: text('email') },
        { address: koa.ip, userAgent: koa.get('user-agent') || null },
      );
      if (outcome.kind === 'gone') return gone(koa);
      if (outcome.kind === 'throttled') {
        koa.status = 429;
        koa.set('Retry-After', String(outcome.retryAfter));
        koa.body = setupForm(koa, token, opened, {}, text('name'), 'Too many failed attempts at this account. Try again later.', text('email'));
        return;
      }
      if (outcome.kind === 'invalid') {
        koa.status = 422;
        koa.body = setupForm(koa, token, opened, outcome.errors, text('name'), undefined, text('email'));
        return;
      }
      koa.body = page(
        'Account ready',
        html`${messagePage('Your account is ready', `Sign in as ${outcome.email} with the password you chose.`)}
          <p><a href="${CONSOLE_PATH}/">Sign in to the merchant console</a> (or through the API: POST /api/auth/login).</p>`,
      );
    },
  };
}
