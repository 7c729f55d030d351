// The merchant's redirect_url hears the payment's outcome signed with the business's own key
// (redirect_signature): the key is read and rotated through the API and sealed at rest, a real
// redirect from a paid link in the sandbox (the payer page driven over HTTP) passes the client
// package's verifyRedirect, and a forged payment_status=1 does not.
import { describe, expect, it } from 'vitest';
import { RedirectVerificationError, verifyRedirect } from '../../client/redirects.js';
import { signedRedirectParams } from '../../server/usecases/merchant/redirect-signing.js';
import { redirectSignature } from '../../shared/redirect-signature.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { useService, type Tenant } from '../support/service.js';

const t = useService();

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

async function keyOf(tenant: Tenant): Promise<string> {
  const { response, data } = await tenant.client.GET('/redirect-signing-key');
  expect(response.status).toBe(200);
  return data!.data.key;
}

/** Pays a payment link with a redirect_url on its page, as a browser does: where the payer is sent. */
async function paidRedirect(tenant: Tenant = t.a, redirectUrl = 'https://merchant.example.com/paid?order=7&signature=merchants-own') {
  const { data } = await tenant.client.POST('/payment-links', {
    body: { email: 'payer@example.com', currency: 'MYR', amount: 1250, title: 'Invoice 7', redirect_url: redirectUrl },
  });
  const payer = new Payer(t.url);
  const paid = await payer.submit(await payer.open(pathOf(data!.data.payment_url)), { name: 'Tan', ...GOOD_CARD });
  expect(paid.status).toBe(303);
  return { link: data!.data, location: new URL(paid.location!) };
}

function forged(location: URL, changes: Record<string, string | null>): URL {
  const copy = new URL(location);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) copy.searchParams.delete(name);
    else copy.searchParams.set(name, value);
  }
  return copy;
}

describe('the redirect signing key', () => {
  it('is made on first read, the same on every read, its own per business, and sealed at rest', async () => {
    const key = await keyOf(t.a);
    expect(key).toMatch(/^rsec_[A-Za-z0-9_-]{43}$/);
    expect(await keyOf(t.a)).toBe(key);
    expect(await keyOf(t.b)).not.toBe(key);
    const [row] = await t.sql('redirect_signing_keys').where({ business_id: t.a.business.id });
    expect(row.key).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(key.slice(5));
  });
});

describe('a payment link paid in the sandbox, redirected to the merchant', () => {
  it('carries redirect_signature, which verifyRedirect accepts with the business key; the merchant’s own parameters stay', async () => {
    const key = await keyOf(t.a);
    const { link, location } = await paidRedirect();
    expect(location.origin + location.pathname).toBe('https://merchant.example.com/paid');
    expect(location.searchParams.get('order')).toBe('7');
    expect(location.searchParams.get('signature')).toBe('merchants-own');
    const text = `payment_id=${location.searchParams.get('payment_id')}&payment_link_id=${link._id}&payment_status=1`;
    // The documented text and key, as a merchant's own code (PHP's hash_hmac) computes them.
    expect(location.searchParams.get('redirect_signature')).toBe(redirectSignature(key, text));
    expect(verifyRedirect(location, key)).toEqual({
      kind: 'payment',
      payment_id: location.searchParams.get('payment_id'),
      payment_link_id: link._id,
      payment_status: 1,
    });
    expect(verifyRedirect(location.search, key).kind).toBe('payment');
    expect(verifyRedirect(pathOf(location.href), [key]).kind).toBe('payment');
    expect(verifyRedirect(Object.fromEntries(location.searchParams), key).kind).toBe('payment');
  });

  it('refuses a forged payment_status=1: without a signature, a pending payment’s signature, another link’s, another business’s key', async () => {
    const key = await keyOf(t.a);
    const { location } = await paidRedirect();
    const paymentId = location.searchParams.get('payment_id')!;
    const linkId = location.searchParams.get('payment_link_id')!;
    const refuse = (url: URL | string, keys: string | string[] = key) => expect(() => verifyRedirect(url, keys)).toThrow(RedirectVerificationError);

    refuse(forged(location, { redirect_signature: null }));
    // What the service signs for a payment still pending at the bank, turned into "paid".
    const pending = await signedRedirectParams(t.service.context, t.a.business.id, 'payment', {
      payment_id: paymentId,
      payment_link_id: linkId,
      payment_status: '2',
    });
    expect(verifyRedirect(new URLSearchParams(pending), key).kind).toBe('payment');
    refuse(forged(location, { payment_status: '1', redirect_signature: pending.redirect_signature }));
    // A real signature, moved onto another link or payment.
    const other = await paidRedirect();
    refuse(forged(location, { payment_link_id: other.link._id }));
    refuse(forged(location, { payment_id: other.location.searchParams.get('payment_id')! }));
    // The thank-you page's signature, or one made with another business's key.
    refuse(forged(location, { redirect_signature: null, signature: location.searchParams.get('redirect_signature') }));
    refuse(location, await keyOf(t.b));
    // Malformed: twice given, upper-case hex, extra text.
    refuse(`${location.search}&payment_status=1`);
    refuse(forged(location, { redirect_signature: location.searchParams.get('redirect_signature')!.toUpperCase() }));
    refuse(forged(location, { payment_status: '1 ' }));
  });
});

describe('a card saved on a token with a redirect_url', () => {
  it('goes to the merchant with token_id, token_status and a redirect_signature that verifies', async () => {
    const key = await keyOf(t.a);
    const { data } = await t.a.client.POST('/tokenizations/create-token', {
      body: { email: 'payer@example.com', title: 'Plan', description: 'Plan', redirect_url: 'https://merchant.example.com/cards' },
    });
    const payer = new Payer(t.url);
    const saved = await payer.submit(await payer.open(pathOf(data!.data.activation_url)), { name: 'Tan', ...GOOD_CARD });
    expect(saved.status).toBe(303);
    const location = new URL(saved.location!);
    expect(verifyRedirect(location, key)).toEqual({ kind: 'token', token_id: data!.data._id, token_status: 'active' });
    expect(location.searchParams.get('redirect_signature')).toBe(redirectSignature(key, `token_id=${data!.data._id}&token_status=active`));
  });
});

describe('POST /api/redirect-signing-key/rotate', () => {
  it('issues a new key; for the overlap redirects carry both signatures, and rotating again drops the oldest', async () => {
    const first = await keyOf(t.b);
    const rotated = await t.b.client.POST('/redirect-signing-key/rotate', { headers: { 'Idempotency-Key': 'rotate-once' } });
    expect(rotated.response.status).toBe(200);
    const second = rotated.data!.data.key;
    expect(second).not.toBe(first);
    const overlap = Date.parse(rotated.data!.data.previous_key_expires_at!) - Date.now();
    expect(overlap).toBeGreaterThan(23 * 3_600_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3_600_000);
    const replay = await t.b.client.POST('/redirect-signing-key/rotate', { headers: { 'Idempotency-Key': 'rotate-once' } });
    expect(replay.data!.data.key).toBe(second);
    expect(await keyOf(t.b)).toBe(second);

    const during = (await paidRedirect(t.b)).location;
    expect(during.searchParams.get('redirect_signature')!.split(',')).toHaveLength(2);
    expect(verifyRedirect(during, second).kind).toBe('payment');
    expect(verifyRedirect(during, first).kind).toBe('payment');

    const third = (await t.b.client.POST('/redirect-signing-key/rotate')).data!.data.key;
    const after = (await paidRedirect(t.b)).location;
    expect(verifyRedirect(after, [third, second]).kind).toBe('payment');
    expect(() => verifyRedirect(after, first)).toThrow(RedirectVerificationError);
  });
});

describe('a redirect signing key that cannot be read', () => {
  it('does not strand a payer who has paid: the redirect goes on unsigned, and verifyRedirect refuses it', async () => {
    const key = await keyOf(t.a);
    const [mine] = await t.sql('redirect_signing_keys').where({ business_id: t.a.business.id });
    const [theirs] = await t.sql('redirect_signing_keys').where({ business_id: t.b.business.id });
    // Sealed for another business: it does not open for this one (as after a change of SECRETS_KEY).
    await t.sql('redirect_signing_keys').where({ business_id: t.a.business.id }).update({ key: theirs.key });
    try {
      const { location } = await paidRedirect();
      expect(location.searchParams.get('payment_status')).toBe('1');
      expect(location.searchParams.has('redirect_signature')).toBe(false);
      expect(() => verifyRedirect(location, key)).toThrow(RedirectVerificationError);
    } finally {
      await t.sql('redirect_signing_keys').where({ business_id: t.a.business.id }).update({ key: mine.key });
    }
  });
});
