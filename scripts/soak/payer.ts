// A payer without a browser, for the soak: GET the hosted form (keeping its CSRF cookie), read the
// hidden csrf_token and attempt_id, POST the form as a browser would, and report where it redirects.
export interface PaymentAnswer {
  /** HTTP requests made: the form and the submit. */
  requests: number;
  status: number;
  location: string | null;
  /** What went wrong, when the payment was not taken. */
  error?: string;
}

const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

export async function pay(origin: string, path: string, fields: Record<string, string>, timeoutMs: number): Promise<PaymentAnswer> {
  const form = await fetch(origin + path, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  const html = await form.text();
  if (form.status !== 200) return { requests: 1, status: form.status, location: null, error: `form answered ${form.status}` };
  const cookie = form.headers.get('set-cookie')?.split(';')[0] ?? '';
  const csrf = hidden(html, 'csrf_token');
  const attempt = hidden(html, 'attempt_id');
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  if (!csrf || !attempt || !action) return { requests: 1, status: form.status, location: null, error: 'form lacks csrf_token, attempt_id or action' };
  const submit = await fetch(origin + action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf_token: csrf, attempt_id: attempt, ...fields }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  await submit.arrayBuffer();
  const location = submit.headers.get('location');
  const paid = submit.status === 303 && location !== null && new URL(location).searchParams.get('payment_status') === '1';
  return { requests: 2, status: submit.status, location, error: paid ? undefined : `submit answered ${submit.status} ${location ?? ''}` };
}
