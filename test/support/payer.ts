// A payer without a browser: opens a hosted page, keeps its cookie, and submits its form as a
// browser would (application/x-www-form-urlencoded, redirects not followed so tests can read them).
export interface PageResponse {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

export interface OpenedForm extends PageResponse {
  csrf: string;
  attemptId: string;
  action: string;
}

function hidden(html: string, name: string): string {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
}

export class Payer {
  private cookie = '';

  /** `headers` go with every request (e.g. an X-Forwarded-For a proxy would add). */
  constructor(
    private readonly origin: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  private remember(headers: Headers): void {
    const set = headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] ?? '';
  }

  async get(path: string): Promise<PageResponse> {
    const response = await fetch(new URL(path, this.origin), {
      headers: { ...this.headers, ...(this.cookie ? { cookie: this.cookie } : {}) },
      redirect: 'manual',
    });
    this.remember(response.headers);
    return { status: response.status, html: await response.text(), headers: response.headers, location: response.headers.get('location') };
  }

  async open(path: string): Promise<OpenedForm> {
    const page = await this.get(path);
    const action = (/<form method="post" action="([^"]*)"/.exec(page.html)?.[1] ?? path).replace(/&amp;/g, '&');
    return { ...page, csrf: hidden(page.html, 'csrf_token'), attemptId: hidden(page.html, 'attempt_id'), action };
  }

  async submit(form: Pick<OpenedForm, 'action' | 'csrf' | 'attemptId'>, fields: Record<string, string>): Promise<PageResponse> {
    const body = new URLSearchParams({ csrf_token: form.csrf, attempt_id: form.attemptId, ...fields });
    const response = await fetch(new URL(form.action, this.origin), {
      method: 'POST',
      body,
      headers: { ...this.headers, 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      redirect: 'manual',
    });
    this.remember(response.headers);
    return { status: response.status, html: await response.text(), headers: response.headers, location: response.headers.get('location') };
  }
}

export const GOOD_CARD = { card_number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' };
export const DECLINED_CARD = { card_number: '4000 0000 0000 0002', expiry: '12/39', cvc: '123' };
export const NO_FUNDS_CARD = { card_number: '4000 0000 0000 9995', expiry: '12/39', cvc: '123' };
export const ERROR_CARD = { card_number: '4000 0000 0000 0119', expiry: '12/39', cvc: '123' };
/** Pays fine; its refunds fail. */
export const REFUND_FAILS_CARD = { card_number: '4000 0000 0000 5126', expiry: '12/39', cvc: '123' };
/** Saves on a token; charging it is declined. */
export const CHARGE_DECLINES_CARD = { card_number: '4000 0000 0000 0341', expiry: '12/39', cvc: '123' };
/** Saves on a token; has expired when charged. */
export const CHARGE_EXPIRES_CARD = { card_number: '4000 0000 0000 0069', expiry: '12/39', cvc: '123' };

/**
 * Opens a hosted page (a payment_url or an activation_url) and submits it as a payer would; answers
 * the submit's response and, after a redirect, the payment_id it carries.
 */
export async function submitPage(origin: string, pageUrl: string, fields: Record<string, string>): Promise<PageResponse & { paymentId: string | null }> {
  const url = new URL(pageUrl);
  const payer = new Payer(origin);
  const answer = await payer.submit(await payer.open(url.pathname + url.search), fields);
  const paymentId = answer.status === 303 ? new URL(answer.location!, origin).searchParams.get('payment_id') : null;
  return { ...answer, paymentId };
}
