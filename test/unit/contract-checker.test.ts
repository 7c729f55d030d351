import { describe, expect, it } from 'vitest';
import { ContractViolation, assertConforms, assertErrorBody, type ObservedResponse } from '../support/contract.js';

// The PaymentLinkOk example of openapi.yaml.
const PAYMENT_LINK_ENVELOPE = {
  success: true,
  data: {
    _id: '6284ff16d4b1c2a3e4f50003',
    business_id: 1,
    email: 'payer@example.com',
    phone_no: '+60123456789',
    currency: 'MYR',
    amount: 1000,
    title: 'Invoice 1001',
    description: 'Web design, May 2022',
    redirect_url: 'https://merchant.example.com/invoices/1001/paid',
    reference: 'INV-1001',
    reference_2: 'customer-42',
    status: 'Active',
    paid: false,
    expires_at: null,
    payment_url: 'http://localhost:3000/payment/pay?id=6284ff16d4b1c2a3e4f50003',
    locale: 'ms',
    created_at: '2022-05-19T08:36:38.897000Z',
    updated_at: '2022-05-19T08:36:38.897000Z',
  },
  errors: null,
  meta: {
    timestamp: '2022-05-19 08:36:38 UTC',
    timezone: 'UTC',
  },
};

const RATE_LIMIT_HEADERS = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-request-id': '3f6c2a4e-8b1d-4f0e-9c7a-5d2b1e0f4a68' };

function getPaymentLink(overrides: Partial<ObservedResponse> = {}): ObservedResponse {
  return {
    method: 'GET',
    path: '/api/payment-links/6284ff16d4b1c2a3e4f50003',
    status: 200,
    contentType: 'application/json; charset=utf-8',
    headers: { ...RATE_LIMIT_HEADERS },
    body: structuredClone(PAYMENT_LINK_ENVELOPE),
    ...overrides,
  };
}

function withData(changes: Record<string, unknown>) {
  return { ...PAYMENT_LINK_ENVELOPE, data: { ...PAYMENT_LINK_ENVELOPE.data, ...changes } };
}

describe('assertConforms accepts what openapi.yaml declares', () => {
  it('accepts the example response of getPaymentLink', async () => {
    await expect(assertConforms(getPaymentLink())).resolves.toBeUndefined();
  });

  it('accepts the same record from a create, an update and a delete', async () => {
    await expect(assertConforms(getPaymentLink({ method: 'POST', path: '/api/payment-links' }))).resolves.toBeUndefined();
    await expect(assertConforms(getPaymentLink({ method: 'PUT' }))).resolves.toBeUndefined();
    await expect(assertConforms(getPaymentLink({ method: 'DELETE' }))).resolves.toBeUndefined();
  });

  it('accepts a declared error status with an error body', async () => {
    await expect(assertConforms(getPaymentLink({ status: 404, body: { message: 'Payment link not found.' } }))).resolves.toBeUndefined();
    await expect(
      assertConforms(
        getPaymentLink({
          method: 'POST',
          path: '/api/payment-links',
          status: 422,
          body: { message: 'The given data was invalid.', errors: { amount: ['The amount must be at least 500.'] } },
        }),
      ),
    ).resolves.toBeUndefined();
  });
});

describe('assertConforms rejects departures from openapi.yaml', () => {
  it('rejects a path with no operation', async () => {
    await expect(assertConforms(getPaymentLink({ path: '/api/payment-linkz/6284ff16d4b1c2a3e4f50003' }))).rejects.toThrow(/no operation in openapi.yaml/);
  });

  it('rejects a status the operation does not declare', async () => {
    // createPaymentLink declares no 404, getPaymentLink declares no 409 and no 201.
    await expect(assertConforms(getPaymentLink({ method: 'POST', path: '/api/payment-links', status: 404, body: { message: 'x' } }))).rejects.toThrow(
      /status not declared for createPaymentLink/,
    );
    await expect(assertConforms(getPaymentLink({ status: 409, body: { message: 'x' } }))).rejects.toThrow(ContractViolation);
    await expect(assertConforms(getPaymentLink({ status: 201 }))).rejects.toThrow(/status not declared for getPaymentLink/);
  });

  it('rejects a content type that is not JSON, or none', async () => {
    await expect(assertConforms(getPaymentLink({ contentType: 'text/html; charset=utf-8' }))).rejects.toThrow(/content type text\/html/);
    await expect(assertConforms(getPaymentLink({ contentType: null }))).rejects.toThrow(ContractViolation);
  });

  it('rejects a PaymentLinkEnvelope without paid', async () => {
    const { paid: _paid, ...withoutPaid } = PAYMENT_LINK_ENVELOPE.data;
    await expect(assertConforms(getPaymentLink({ body: { ...PAYMENT_LINK_ENVELOPE, data: withoutPaid } }))).rejects.toThrow(
      /body does not match the schema.*paid/,
    );
  });

  it('rejects an envelope without meta, or with success false', async () => {
    const { meta: _meta, ...withoutMeta } = PAYMENT_LINK_ENVELOPE;
    await expect(assertConforms(getPaymentLink({ body: withoutMeta }))).rejects.toThrow(ContractViolation);
    await expect(assertConforms(getPaymentLink({ body: { ...PAYMENT_LINK_ENVELOPE, success: false } }))).rejects.toThrow(ContractViolation);
  });

  it('rejects timestamps without six fractional digits', async () => {
    await expect(assertConforms(getPaymentLink({ body: withData({ created_at: '2022-05-19T08:36:38.897Z' }) }))).rejects.toThrow(
      /body does not match the schema/,
    );
    await expect(assertConforms(getPaymentLink({ body: withData({ updated_at: '2022-05-19 08:36:38.897+00' }) }))).rejects.toThrow(ContractViolation);
    const badMeta = { ...PAYMENT_LINK_ENVELOPE, meta: { timestamp: '2022-05-19T08:36:38Z', timezone: 'UTC' } };
    await expect(assertConforms(getPaymentLink({ body: badMeta }))).rejects.toThrow(ContractViolation);
  });

  it('rejects wrong types and values', async () => {
    await expect(assertConforms(getPaymentLink({ body: withData({ amount: '1000' }) }))).rejects.toThrow(ContractViolation);
    await expect(assertConforms(getPaymentLink({ body: withData({ status: 'Pending' }) }))).rejects.toThrow(ContractViolation);
    await expect(assertConforms(getPaymentLink({ body: withData({ _id: '6284FF16D4B1C2A3E4F50003' }) }))).rejects.toThrow(ContractViolation);
  });

  it('rejects an error body without message, and a 422 without errors', async () => {
    await expect(assertConforms(getPaymentLink({ status: 404, body: {} }))).rejects.toThrow(ContractViolation);
    await expect(
      assertConforms(getPaymentLink({ method: 'POST', path: '/api/payment-links', status: 422, body: { message: 'The given data was invalid.' } })),
    ).rejects.toThrow(ContractViolation);
  });

  it('rejects a 429 without an integer Retry-After header', async () => {
    const tooMany = (headers: Record<string, string>) =>
      getPaymentLink({ status: 429, headers: { ...RATE_LIMIT_HEADERS, ...headers }, body: { message: 'Too Many Attempts.' } });
    await expect(assertConforms(tooMany({ 'retry-after': '30' }))).resolves.toBeUndefined();
    await expect(assertConforms(tooMany({}))).rejects.toThrow(/required headers missing: Retry-After/);
    await expect(assertConforms(tooMany({ 'retry-after': 'soon' }))).rejects.toThrow(/headers do not match/);
  });

  it('rejects a response without the rate-limit and request-id headers every /api response carries', async () => {
    await expect(assertConforms(getPaymentLink({ headers: {} }))).rejects.toThrow(
      /required headers missing: X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id/,
    );
    await expect(assertConforms(getPaymentLink({ headers: { ...RATE_LIMIT_HEADERS, 'x-request-id': 'two words' } }))).rejects.toThrow(/headers do not match/);
    await expect(assertConforms(getPaymentLink({ headers: { ...RATE_LIMIT_HEADERS, 'x-ratelimit-remaining': 'many' } }))).rejects.toThrow(
      /headers do not match/,
    );
  });

  it('rejects a body that is not JSON at all', async () => {
    await expect(assertConforms(getPaymentLink({ body: '<html>Server Error</html>' }))).rejects.toThrow(ContractViolation);
  });
});

describe('assertErrorBody: {message} for responses outside any operation', () => {
  it('accepts {message}', async () => {
    await expect(assertErrorBody(404, 'application/json', { message: 'x' })).resolves.toBeUndefined();
  });

  it('rejects {}, a non-string message and a non-object', async () => {
    await expect(assertErrorBody(404, 'application/json', {})).rejects.toThrow(ContractViolation);
    await expect(assertErrorBody(405, 'application/json', { message: 405 })).rejects.toThrow(ContractViolation);
    await expect(assertErrorBody(404, 'application/json', 'Not Found')).rejects.toThrow(/body is not \{message\}/);
  });

  it('rejects a content type that is not JSON', async () => {
    await expect(assertErrorBody(404, 'text/html', { message: 'x' })).rejects.toThrow(/content type text\/html/);
    await expect(assertErrorBody(404, null, { message: 'x' })).rejects.toThrow(ContractViolation);
  });
});
