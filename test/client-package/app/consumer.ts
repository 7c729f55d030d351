// A strict TypeScript program of a consumer app: every operation of the API through the installed
// package, with the typed bodies, parameters, answers and errors. Only type-checked (tsc --strict).
import { createPaymentsClient, isValidationError, type PaymentLink, type PaymentsClient, type ValidationErrorBody } from '@payment-collection/client';
import { RedirectVerificationError, verifyRedirect, type VerifiedRedirect } from '@payment-collection/client/redirects';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@payment-collection/client/webhooks';

export async function everyOperation(payments: PaymentsClient): Promise<string[]> {
  const seen: string[] = [];
  const token = await payments.POST('/tokenizations/create-token', { body: { email: 'a@example.com', title: 'Plan', description: 'Card' } });
  if (!token.data) throw new Error('createToken');
  const activation: string = token.data.data.activation_url;
  seen.push(activation);
  await payments.GET('/tokenizations/{token_id}', { params: { path: { token_id: token.data.data._id } } });

  const open = await payments.POST('/open-payment-links', { body: { title: 'Donations', currency: 'MYR', minimum_amount: 5 } });
  const openId = open.data!.data._id;
  await payments.GET('/open-payment-links', { params: { query: { page: 1, per_page: 10, 'filter[status]': true } } });
  await payments.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: openId } } });
  await payments.PUT('/open-payment-links/{open_payment_link_id}', {
    params: { path: { open_payment_link_id: openId } },
    body: { title: 'Donations', currency: 'MYR', minimum_amount: '10.50' },
  });
  const total = await payments.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params: { path: { open_payment_link_id: openId } } });
  seen.push(String(total.data?.data.total_amount));
  await payments.GET('/open-payment-links/{open_payment_link_id}/top-collection', {
    params: { path: { open_payment_link_id: openId }, query: { 'filter[limit]': 5 } },
  });
  // The QR code is an image, not JSON: SVG as text, PNG (asked for with Accept) as a Blob.
  const svg = await payments.GET('/open-payment-links/{open_payment_link_id}/qr', { params: { path: { open_payment_link_id: openId } }, parseAs: 'text' });
  const drawing: string | undefined = svg.data;
  seen.push(drawing ?? '');
  await payments.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: openId } } });

  const created = await payments.POST('/payment-links', {
    body: { email: 'p@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  const link: PaymentLink | undefined = created.data?.data;
  if (!link) throw new Error('createPaymentLink');
  await payments.GET('/payment-links', { params: { query: { 'filter[email]': 'p@example.com' } } });
  await payments.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
  await payments.PUT('/payment-links/{payment_link_id}', {
    params: { path: { payment_link_id: link._id } },
    body: { email: 'p@example.com', currency: 'MYR', amount: 1500, title: 'Invoice' },
  });
  const png = await payments.GET('/payment-links/{payment_link_id}/qr', {
    params: { path: { payment_link_id: link._id } },
    headers: { Accept: 'image/png' },
    parseAs: 'blob',
  });
  const image: Blob | undefined = png.data;
  seen.push(String(image?.size));
  await payments.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });

  const page = await payments.GET('/payments', { params: { query: { 'filter[status]': 'failed', 'filter[payment_link_id]': link._id } } });
  for (const payment of page.data?.data.data ?? []) seen.push(`${payment.status} ${payment.failure_code ?? ''}`);
  const lookup = await payments.GET('/payments/{payment_id}', { params: { path: { payment_id: link._id } } });
  if (lookup.response.status === 404) seen.push(lookup.error?.message ?? '');

  // Typed errors: a 422 names its fields.
  const refused = await payments.POST('/payment-links', { body: { email: 'p@example.com', currency: 'MYR', amount: 499, title: 'Invoice' } });
  if (refused.response.status === 422 && isValidationError(refused.error)) {
    const body: ValidationErrorBody = refused.error;
    const amount: string[] | undefined = body.errors.amount;
    seen.push(...(amount ?? []));
  }
  // The compiler refuses what the contract refuses.
  // @ts-expect-error amount is a number or a string, never a boolean
  await payments.POST('/payment-links', { body: { email: 'p@example.com', currency: 'MYR', amount: true, title: 'Invoice' } });
  // @ts-expect-error no such path
  await payments.GET('/no-such-path');
  return seen;
}

export function receive(raw: string, headers: Record<string, string>, key: string): WebhookEvent | undefined {
  try {
    return verifyWebhook(raw, headers, key);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return undefined;
    throw error;
  }
}

/** A merchant's redirect page: the payment it may trust, or undefined for a forged or altered redirect. */
export function returned(url: string, key: string): VerifiedRedirect | undefined {
  try {
    const redirect = verifyRedirect(url, key);
    if (redirect.kind === 'payment' && redirect.payment_status === 1) return redirect;
    return undefined;
  } catch (error) {
    if (error instanceof RedirectVerificationError) return undefined;
    throw error;
  }
}

export const client: PaymentsClient = createPaymentsClient({ baseUrl: 'http://localhost:3000/api', apiKey: 'sk_test' });
