import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';

describe('loadConfig: defaults', () => {
  it('uses the embedded SQLite database, port 3000, all interfaces and no public URL when nothing is set', () => {
    expect(loadConfig({})).toMatchObject({ databaseUrl: 'sqlite:./data/payments.sqlite', port: 3000, host: '0.0.0.0', publicUrl: undefined });
  });

  it('treats empty DATABASE_URL, HOST and PUBLIC_URL as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', HOST: '', PUBLIC_URL: '' })).toMatchObject({
      databaseUrl: 'sqlite:./data/payments.sqlite',
      port: 3000,
      host: '0.0.0.0',
      publicUrl: undefined,
    });
  });

  it('reads the environment it is given, not process.env', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://app@db/payments', PORT: '8080', HOST: '127.0.0.1', PUBLIC_URL: 'https://pay.example.com' });
    expect(config).toMatchObject({ databaseUrl: 'postgres://app@db/payments', port: 8080, host: '127.0.0.1', publicUrl: 'https://pay.example.com' });
  });
});

describe('loadConfig: PORT', () => {
  it('accepts 0 (any free port) through 65535', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
  });

  it.each(['abc', '3000.5', '-1', '65536', '99999', '30 00'])('rejects PORT=%j with a ConfigError naming the variable and the value', (value) => {
    expect(() => loadConfig({ PORT: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: value })).toThrow(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  });

  it('treats an empty PORT as unset instead of listening on a random port', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(3000);
  });

  it('rejects hexadecimal, binary and exponent spellings, which are not decimal port numbers', () => {
    for (const value of ['0x1F90', '0b101', '1e3']) expect(() => loadConfig({ PORT: value }), value).toThrow(ConfigError);
  });
});

describe('loadConfig: PUBLIC_URL', () => {
  it('trims trailing slashes so that URLs can be appended with a slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:3000/' }).publicUrl).toBe('http://localhost:3000');
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/pay//' }).publicUrl).toBe('https://example.com/pay');
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/pay' }).publicUrl).toBe('https://example.com/pay');
  });

  it.each(['localhost:3000/', 'pay.example.com', '/pay', 'http://'])('rejects the non-absolute URL %j with a ConfigError naming it', (value) => {
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL must be an (absolute )?http\(s\) URL, got /);
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(JSON.stringify(value));
  });

  it.each(['ftp://example.com', 'javascript:alert(1)', 'file:///srv/app'])('rejects the non-http scheme of %j with a ConfigError naming it', (value) => {
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(`PUBLIC_URL must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  });

  it('reads mail and outbox settings, defaulting to files under ./data/mail and a worker on', () => {
    expect(loadConfig({}).mail).toEqual({ smtpUrl: undefined, from: 'Payment Collection Service <no-reply@localhost>', mailDir: './data/mail' });
    expect(loadConfig({}).outbox).toMatchObject({ worker: true, leaseMs: 60_000, webhookTimeoutMs: 10_000, retry: { baseMs: 30_000, maxAttempts: 12 } });
    const config = loadConfig({ SMTP_URL: 'smtp://mail.example.com:2525', OUTBOX_WORKER: 'off', OUTBOX_MAX_ATTEMPTS: '3' });
    expect(config.mail.smtpUrl).toBe('smtp://mail.example.com:2525');
    expect(config.outbox).toMatchObject({ worker: false, retry: { maxAttempts: 3 } });
  });

  it('rejects unusable mail and outbox settings', () => {
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow('SMTP_URL must be an absolute smtp(s) URL');
    expect(() => loadConfig({ OUTBOX_WORKER: 'maybe' })).toThrow('OUTBOX_WORKER must be on or off');
    expect(() => loadConfig({ OUTBOX_MAX_ATTEMPTS: '0' })).toThrow('OUTBOX_MAX_ATTEMPTS must be an integer from 1 to 100');
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '60000', OUTBOX_LEASE_MS: '30000' })).toThrow('WEBHOOK_TIMEOUT_MS must be shorter than OUTBOX_LEASE_MS');
  });

  it('logs at info unless LOG_LEVEL names a pino level, in any case', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(loadConfig({ LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
  });

  it('is an Error subclass so that callers can tell configuration mistakes apart', () => {
    let thrown: unknown;
    try {
      loadConfig({ PORT: 'abc' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown).toBeInstanceOf(Error);
  });
});

describe('loadConfig: payer pages', () => {
  it('limits form posts per address, link and card in 10-minute windows by default, trusts no proxy and has no signing secret', () => {
    expect(loadConfig({})).toMatchObject({ pageLimits: { windowSeconds: 600, perAddress: 30, perLink: 100, perCard: 10 }, trustProxyHops: 0, pageSigningSecret: undefined });
  });

  it('reads each page limit, the proxy hops and the signing secret', () => {
    const config = loadConfig({
      PAGE_RATE_LIMIT_WINDOW_SECONDS: '60',
      PAGE_RATE_LIMIT_PER_ADDRESS: '5',
      PAGE_RATE_LIMIT_PER_LINK: '7',
      PAGE_RATE_LIMIT_PER_CARD: '2',
      TRUST_PROXY_HOPS: '1',
      PAGE_SIGNING_SECRET: 'x'.repeat(32),
    });
    expect(config).toMatchObject({ pageLimits: { windowSeconds: 60, perAddress: 5, perLink: 7, perCard: 2 }, trustProxyHops: 1, pageSigningSecret: 'x'.repeat(32) });
  });

  it.each([
    ['PAGE_RATE_LIMIT_PER_CARD', '0'],
    ['PAGE_RATE_LIMIT_WINDOW_SECONDS', '86401'],
    ['TRUST_PROXY_HOPS', '-1'],
  ])('rejects %s=%s with a ConfigError naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('rejects a PAGE_SIGNING_SECRET shorter than 32 characters', () => {
    expect(() => loadConfig({ PAGE_SIGNING_SECRET: 'too short' })).toThrow('PAGE_SIGNING_SECRET must be at least 32 characters');
  });
});
