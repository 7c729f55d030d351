// The acquirer in the API (the console's Settings use it): GET/PUT /api/business/acquirer. Stripe's secrets are
// sealed at rest, never shown back (only a hint and the mode), kept when left out, and a business
// moving back to the sandbox keeps them; the shapes are the CLI's (set-provider).
import { describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';

const t = useService();

const TEST_KEY = 'sk_test_51AbCdEfGhIjKlMnOp4242';
const LIVE_KEY = 'rk_live_51ZyXwVuTsRqPoNm9876';
const WHSEC = 'whsec_SigningSecretForTests00';

async function stored(businessId: number) {
  return (await t.sql('businesses').select('provider', 'stripe_secret_key', 'stripe_webhook_secret').where({ id: businessId }).first()) as {
    provider: string;
    stripe_secret_key: string | null;
    stripe_webhook_secret: string | null;
  };
}

describe('GET/PUT /api/business/acquirer', () => {
  it('starts on the sandbox, with the address to register at Stripe', async () => {
    const { response, data } = await t.b.client.GET('/business/acquirer');
    expect(response.status).toBe(200);
    expect(data!.data).toEqual({
      acquirer: 'sandbox',
      mode: null,
      stripe_key_hint: null,
      stripe_webhook_secret_set: false,
      stripe_webhook_url: `${t.url}/stripe/webhooks/${t.b.business.id}`,
    });
  });

  it('stores Stripe sealed, shows only the hint and mode, keeps a key left out, and keeps it back on the sandbox', async () => {
    const set = await t.a.client.PUT('/business/acquirer', { body: { acquirer: 'stripe', stripe_secret_key: TEST_KEY, stripe_webhook_secret: WHSEC } });
    expect(set.response.status).toBe(200);
    expect(set.data!.data).toMatchObject({ acquirer: 'stripe', mode: 'test', stripe_key_hint: 'sk_test_…4242', stripe_webhook_secret_set: true });
    const text = JSON.stringify(set.data);
    expect(text).not.toContain(TEST_KEY);
    expect(text).not.toContain(WHSEC);

    const read = await t.a.client.GET('/business/acquirer');
    expect(read.data!.data).toEqual(set.data!.data);

    const row = await stored(t.a.business.id);
    expect(row.provider).toBe('stripe');
    expect(row.stripe_secret_key).toBeTruthy();
    expect(row.stripe_secret_key).not.toContain(TEST_KEY);
    expect(row.stripe_secret_key).not.toContain('4242');
    expect(row.stripe_webhook_secret).not.toContain(WHSEC);

    const again = await t.a.client.PUT('/business/acquirer', { body: { acquirer: 'stripe' } });
    expect(again.response.status).toBe(200);
    expect(again.data!.data).toMatchObject({ acquirer: 'stripe', mode: 'test', stripe_key_hint: 'sk_test_…4242', stripe_webhook_secret_set: true });
    expect((await stored(t.a.business.id)).stripe_secret_key).toBe(row.stripe_secret_key);

    const back = await t.a.client.PUT('/business/acquirer', { body: { acquirer: 'sandbox' } });
    expect(back.data!.data).toMatchObject({ acquirer: 'sandbox', mode: 'test', stripe_key_hint: 'sk_test_…4242', stripe_webhook_secret_set: true });

    const live = await t.a.client.PUT('/business/acquirer', { body: { acquirer: 'stripe', stripe_secret_key: LIVE_KEY } });
    expect(live.data!.data).toMatchObject({ acquirer: 'stripe', mode: 'live', stripe_key_hint: 'rk_live_…9876', stripe_webhook_secret_set: true });

    // Each write is in the audit log, by its operation, without a secret.
    const audit = await t.a.client.GET('/audit-events', { params: { query: { 'filter[action]': 'setAcquirer' } } });
    expect(audit.data!.data.data).toHaveLength(4);
    expect(JSON.stringify(audit.data)).not.toContain(TEST_KEY);

    // Another business is untouched.
    const other = await t.b.client.GET('/business/acquirer');
    expect(other.data!.data).toMatchObject({ acquirer: 'sandbox', mode: null, stripe_key_hint: null, stripe_webhook_secret_set: false });
  });

  it('refuses keys and signing secrets of the wrong shape, and Stripe without a key the first time, never repeating them', async () => {
    const bad = await t.b.client.PUT('/business/acquirer', {
      body: { acquirer: 'stripe', stripe_secret_key: 'pk_test_51AbCdEfGh1234', stripe_webhook_secret: 'secret_123456789' },
    });
    expect(bad.response.status).toBe(422);
    expect(bad.error).toEqual({
      message: 'The given data was invalid.',
      errors: {
        stripe_secret_key: ['The stripe secret key must be a Stripe secret or restricted key (sk_test_, sk_live_, rk_test_ or rk_live_).'],
        stripe_webhook_secret: ['The stripe webhook secret must be a Stripe webhook signing secret (whsec_...).'],
      },
    });
    expect(JSON.stringify(bad.error)).not.toContain('pk_test_51AbCdEfGh1234');

    const first = await t.b.client.PUT('/business/acquirer', { body: { acquirer: 'stripe', stripe_webhook_secret: WHSEC } });
    expect(first.response.status).toBe(422);
    expect(first.error).toEqual({
      message: 'The given data was invalid.',
      errors: { stripe_secret_key: ['The stripe secret key field is required when acquirer is stripe.'] },
    });

    const row = await stored(t.b.business.id);
    expect(row).toEqual({ provider: 'sandbox', stripe_secret_key: null, stripe_webhook_secret: null });
  });

  it('answers 403 to a key that may only read settings, and lets it read', async () => {
    const made = await t.b.client.POST('/api-keys', { body: { name: 'Settings reader', permissions: ['settings:read'] } });
    expect(made.response.status).toBe(200);
    const reader = t.clientFor(made.data!.data.secret);
    expect((await reader.GET('/business/acquirer')).response.status).toBe(200);
    const refused = await reader.PUT('/business/acquirer', { body: { acquirer: 'stripe', stripe_secret_key: TEST_KEY } });
    expect(refused.response.status).toBe(403);
    expect((await stored(t.b.business.id)).provider).toBe('sandbox');
  });
});
