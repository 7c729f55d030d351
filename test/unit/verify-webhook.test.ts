import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { eventHash, verifyWebhook, WebhookVerificationError } from '../../client/webhooks.js';

const KEY = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

function signed(data: Record<string, unknown>, options: { key?: string; at?: Date; id?: string } = {}) {
  const key = options.key ?? KEY;
  const body = JSON.stringify({ trigger_at: '2026-11-23T10:00:00.000000Z', event: 'payment.created', data: { ...data, hash: eventHash(key, data) } });
  const at = options.at ?? new Date();
  const id = options.id ?? 'evt_1';
  return {
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, at, body) },
  };
}

const data = { payment_id: 'p1', attempt_id: 'a1', payment_amount: '10.00', payment_currency: 'MYR', payment_status: 1, payment_link_reference: null };

describe('verifyWebhook', () => {
  it('returns the event when both signatures and the timestamp check out', () => {
    const { body, headers } = signed(data);
    expect(verifyWebhook(body, headers, KEY)).toMatchObject({ event: 'payment.created', data: { payment_id: 'p1' } });
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), KEY).data).toMatchObject({ payment_amount: '10.00' });
  });

  it('rejects a body changed after signing', () => {
    const { body, headers } = signed(data);
    expect(() => verifyWebhook(body.replace('10.00', '99.00'), headers, KEY)).toThrow(WebhookVerificationError);
  });

  it('rejects another key', () => {
    const { body, headers } = signed(data);
    expect(() => verifyWebhook(body, headers, 'whsec_b3RoZXIta2V5LW90aGVyLWtleS1vdGhlci1rZXk=')).toThrow(WebhookVerificationError);
  });

  it('rejects a timestamp more than five minutes old', () => {
    const { body, headers } = signed(data, { at: new Date(Date.now() - 6 * 60_000) });
    expect(() => verifyWebhook(body, headers, KEY)).toThrow(/too old/i);
  });

  it('rejects missing headers', () => {
    const { body } = signed(data);
    expect(() => verifyWebhook(body, {}, KEY)).toThrow(WebhookVerificationError);
  });

  it('rejects a correctly signed request whose data.hash does not match', () => {
    const at = new Date();
    const body = JSON.stringify({ event: 'payment.created', data: { ...data, hash: '0'.repeat(64) } });
    const headers = {
      'webhook-id': 'evt_2',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(KEY).sign('evt_2', at, body),
    };
    expect(() => verifyWebhook(body, headers, KEY)).toThrow('data.hash does not match');
  });

  it('hashes null as empty text and keeps the order of the fields', () => {
    expect(eventHash(KEY, { a: 'x', b: null, c: 1 })).toBe(eventHash(KEY, { a: 'x', b: '', c: '1' }));
    expect(eventHash(KEY, { a: 'x', c: 1 })).not.toBe(eventHash(KEY, { c: 1, a: 'x' }));
  });
});
