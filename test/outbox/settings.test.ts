// The outbox's settings as read from the environment: what is on by default, and what is refused.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';

describe('outbox settings', () => {
  it('refuse private webhook receivers, deliver 16 at a time (4 per business), break after 5 failures and keep 30 days by default', () => {
    expect(loadConfig({}).outbox).toMatchObject({
      webhookAllowPrivate: false,
      webhookAllowedPorts: [
        [80, 80],
        [443, 443],
        [8443, 8443],
      ],
      concurrency: 16,
      perBusinessConcurrency: 4,
      breaker: { threshold: 5, coolDownMs: 60_000 },
      retention: { days: 30 },
    });
  });

  it('read WEBHOOK_ALLOW_PRIVATE, the pool sizes, the breaker and the retention', () => {
    const env = {
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOWED_PORTS: ' 443, 8000-8999,9443 ',
      OUTBOX_CONCURRENCY: '32',
      OUTBOX_CONCURRENCY_PER_BUSINESS: '2',
      WEBHOOK_BREAKER_THRESHOLD: '10',
      WEBHOOK_BREAKER_COOLDOWN_MS: '300000',
      OUTBOX_RETENTION_DAYS: '0',
    };
    expect(loadConfig(env).outbox).toMatchObject({
      webhookAllowPrivate: true,
      webhookAllowedPorts: [
        [443, 443],
        [8000, 8999],
        [9443, 9443],
      ],
      concurrency: 32,
      perBusinessConcurrency: 2,
      breaker: { threshold: 10, coolDownMs: 300_000 },
      retention: { days: 0 },
    });
    // A pool smaller than the per-business default takes the pool's size as the per-business limit.
    expect(loadConfig({ OUTBOX_CONCURRENCY: '2' }).outbox).toMatchObject({ concurrency: 2, perBusinessConcurrency: 2 });
  });

  it('refuse values that make no sense, naming the variable', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'sometimes' })).toThrow('WEBHOOK_ALLOW_PRIVATE must be on or off');
    for (const ports of ['any', '0', '65536', '443,', '9000-8000', '80 443', '-1', '1-70000'])
      expect(() => loadConfig({ WEBHOOK_ALLOWED_PORTS: ports }), ports).toThrow('WEBHOOK_ALLOWED_PORTS must be ports from 1 to 65535');
    expect(() => loadConfig({ OUTBOX_CONCURRENCY: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ OUTBOX_CONCURRENCY: '4', OUTBOX_CONCURRENCY_PER_BUSINESS: '5' })).toThrow(
      'OUTBOX_CONCURRENCY_PER_BUSINESS must not be larger than OUTBOX_CONCURRENCY',
    );
    expect(() => loadConfig({ WEBHOOK_BREAKER_THRESHOLD: '0' })).toThrow('WEBHOOK_BREAKER_THRESHOLD must be an integer from 1');
    expect(() => loadConfig({ OUTBOX_RETENTION_DAYS: '-1' })).toThrow('OUTBOX_RETENTION_DAYS must be an integer from 0');
  });
});
