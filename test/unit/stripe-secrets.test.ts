// The contract states the Stripe secrets' forms for tools (a pattern the service restates in its own
// 422 text); the service judges them with its own rules. The two must say the same.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET } from '../../server/domain/stripe-secrets.js';

interface Secret {
  pattern?: string;
  maxLength?: number;
}

// The document as the server loads it (generated from openapi.yaml, checked for freshness).
const { document: spec } = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as {
  document: {
    components: { schemas: { AcquirerSettingsUpdate: { properties: Record<'stripe_secret_key' | 'stripe_webhook_secret', Secret> } } };
  };
};
const update = spec.components.schemas.AcquirerSettingsUpdate.properties;

describe("the Stripe secrets' forms", () => {
  it('are the patterns the contract gives', () => {
    expect(update.stripe_secret_key.pattern).toBe(STRIPE_SECRET_KEY.source);
    expect(update.stripe_webhook_secret.pattern).toBe(STRIPE_WEBHOOK_SECRET.source);
  });

  it('accept a value as long as the maxLength, and none longer', () => {
    for (const [rule, prefix, field] of [
      [STRIPE_SECRET_KEY, 'sk_live_', update.stripe_secret_key],
      [STRIPE_WEBHOOK_SECRET, 'whsec_', update.stripe_webhook_secret],
    ] as const) {
      expect(rule.test(prefix.padEnd(field.maxLength!, 'a'))).toBe(true);
      expect(rule.test(prefix.padEnd(field.maxLength! + 1, 'a'))).toBe(false);
    }
  });
});
