// A plain Node.js program of a consumer app (no TypeScript, no loader): the client package's README
// example, then every operation against the real server. Prints one JSON line: the statuses seen.
import { createPaymentsClient, isValidationError } from '@payment-collection/client';
import { RedirectVerificationError, verifyRedirect } from '@payment-collection/client/redirects';
import { verifyWebhook, WebhookVerificationError } from '@payment-collection/client/webhooks';

const payments = createPaymentsClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.PAYMENTS_KEY });
const statuses = {};
const note = (name, { response }) => (statuses[name] = response.status);

const { data, error, response } = await payments.POST('/payment-links', {
  body: { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1001' },
});
if (!data) throw new Error(`README example failed: ${response.status} ${JSON.stringify(error)}`);
note('createPaymentLink', { response });
const linkId = data.data._id;

const token = await payments.POST('/tokenizations/create-token', { body: { email: 'aisha@example.com', title: 'Monthly plan', description: 'Card' } });
note('createToken', token);
note('getToken', await payments.GET('/tokenizations/{token_id}', { params: { path: { token_id: token.data.data._id } } }));

const open = await payments.POST('/open-payment-links', { body: { title: 'Donations', currency: 'MYR', minimum_amount: 5 } });
note('createOpenPaymentLink', open);
const openId = open.data.data._id;
const path = { open_payment_link_id: openId };
note('listOpenPaymentLinks', await payments.GET('/open-payment-links', { params: { query: { 'filter[status]': true } } }));
note('getOpenPaymentLink', await payments.GET('/open-payment-links/{open_payment_link_id}', { params: { path } }));
note(
  'updateOpenPaymentLink',
  await payments.PUT('/open-payment-links/{open_payment_link_id}', {
    params: { path },
    body: { title: 'Donations 2026', currency: 'MYR', minimum_amount: 10 },
  }),
);
note('getOpenPaymentLinkTotalCollection', await payments.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params: { path } }));
note(
  'getOpenPaymentLinkTopCollection',
  await payments.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params: { path, query: { 'filter[limit]': 5 } } }),
);
const openQr = await payments.GET('/open-payment-links/{open_payment_link_id}/qr', { params: { path }, parseAs: 'text' });
if (!openQr.data.startsWith('<svg')) throw new Error(`the open link's QR code is not an SVG: ${openQr.data.slice(0, 100)}`);
note('getOpenPaymentLinkQrCode', openQr);
note('deleteOpenPaymentLink', await payments.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path } }));

note('listPaymentLinks', await payments.GET('/payment-links', { params: { query: { per_page: 50, 'filter[status]': 'Active' } } }));
note('getPaymentLink', await payments.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: linkId } } }));
note(
  'updatePaymentLink',
  await payments.PUT('/payment-links/{payment_link_id}', {
    params: { path: { payment_link_id: linkId } },
    body: { email: 'payer@example.com', currency: 'MYR', amount: 1500, title: 'Invoice 1001' },
  }),
);
const linkQr = await payments.GET('/payment-links/{payment_link_id}/qr', {
  params: { path: { payment_link_id: linkId } },
  headers: { Accept: 'image/png' },
  parseAs: 'arrayBuffer',
});
if (linkQr.response.headers.get('content-type') !== 'image/png')
  throw new Error(`the link's QR code is not a PNG: ${linkQr.response.headers.get('content-type')}`);
note('getPaymentLinkQrCode', linkQr);
note('deletePaymentLink', await payments.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: linkId } } }));

const paymentsPage = await payments.GET('/payments', { params: { query: { 'filter[status]': 'paid' } } });
note('listPayments', paymentsPage);
// Nothing was paid in this program: the lookup answers the typed 404.
note('getPayment', await payments.GET('/payments/{payment_id}', { params: { path: { payment_id: 'ffffffffffffffffffffffff' } } }));

const refused = await payments.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 499, title: 'Invoice 1001' } });
const validation = isValidationError(refused.error) ? refused.error.errors : null;
const missing = await payments.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: linkId } } });
let webhookRefused = false;
try {
  verifyWebhook('{}', { 'webhook-id': 'x', 'webhook-timestamp': '0', 'webhook-signature': 'v1,AAAA' }, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
} catch (e) {
  webhookRefused = e instanceof WebhookVerificationError;
}
let redirectRefused = false;
try {
  verifyRedirect('?payment_id=6284ff16d4b1c2a3e4f50003&payment_link_id=6284ff16d4b1c2a3e4f50002&payment_status=1', 'rsec_key');
} catch (e) {
  redirectRefused = e instanceof RedirectVerificationError;
}
console.log(JSON.stringify({ statuses, validation, missing: missing.response.status, webhookRefused, redirectRefused }));
