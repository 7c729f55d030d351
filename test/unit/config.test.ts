import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../server/config.js';
import { MasterKey } from '../../server/secrets/master-key.js';

const SECRETS_KEY = randomBytes(32).toString('hex');

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
    const config = loadConfig({
      DATABASE_URL: 'postgres://app@db/payments',
      PORT: '8080',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'https://pay.example.com',
      SECRETS_KEY,
    });
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

describe('loadConfig: SECRETS_KEY and SECRETS_KEY_FILE', () => {
  it('leaves the key to the key file next to the SQLite database when unset', () => {
    expect(loadConfig({}).secrets).toEqual({ key: undefined, keyFile: undefined });
    expect(loadConfig({ SECRETS_KEY: '', SECRETS_KEY_FILE: '' }).secrets).toEqual({ key: undefined, keyFile: undefined });
    expect(loadConfig({ SECRETS_KEY_FILE: '/run/secrets/payments.key' }).secrets.keyFile).toBe('/run/secrets/payments.key');
  });

  it('reads 32 bytes as 64 hex characters or base64, as the same key', () => {
    const bytes = randomBytes(32);
    const id = new MasterKey(bytes).id;
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]) {
      expect(loadConfig({ SECRETS_KEY: text }).secrets.key?.id, text).toBe(id);
    }
  });

  it.each([
    ['a passphrase', 'correct horse battery staple'],
    ['16 bytes of hex', randomBytes(16).toString('hex')],
    ['64 characters that are not hex', 'z'.repeat(64)],
    ['base64 of 24 bytes', randomBytes(24).toString('base64')],
  ])('refuses %s with a ConfigError that says what it wants and does not repeat the value', (_name, value) => {
    expect(() => loadConfig({ SECRETS_KEY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ SECRETS_KEY: value })).toThrow('SECRETS_KEY must be 32 bytes written as 64 hexadecimal characters or in base64 (44 characters)');
    try {
      loadConfig({ SECRETS_KEY: value });
    } catch (error) {
      expect((error as Error).message).not.toContain(value);
    }
  });

  it('is required on PostgreSQL, where every instance and script must share one key', () => {
    for (const url of ['postgres://app@db/payments', 'postgresql://app@db/payments']) {
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: url, SECRETS_KEY_FILE: '/run/secrets/payments.key' })).toThrow(
        'SECRETS_KEY must be set when DATABASE_URL is PostgreSQL: every instance and script on the database must use the same key',
      );
      expect(loadConfig({ DATABASE_URL: url, SECRETS_KEY }).secrets.key).toBeInstanceOf(MasterKey);
    }
  });

  it('keeps the key out of the configuration when it is logged', () => {
    const config = loadConfig({ SECRETS_KEY });
    expect(JSON.stringify(config)).not.toContain(SECRETS_KEY);
    expect(JSON.stringify(config)).not.toContain(Buffer.from(SECRETS_KEY, 'hex').toString('base64'));
  });
});

describe('loadConfig: payer pages', () => {
  it('limits form posts per address, link and card in 10-minute windows by default, and trusts no proxy', () => {
    expect(loadConfig({})).toMatchObject({
      pageLimits: { windowSeconds: 600, perAddress: 30, perLink: 100, perCard: 10, checkoutsPerAddress: 3, openCheckoutsPerLink: 50 },
      trustProxyHops: 0,
    });
  });

  it('reads each page limit and the proxy hops', () => {
    const config = loadConfig({
      PAGE_RATE_LIMIT_WINDOW_SECONDS: '60',
      PAGE_RATE_LIMIT_PER_ADDRESS: '5',
      PAGE_RATE_LIMIT_PER_LINK: '7',
      PAGE_RATE_LIMIT_PER_CARD: '2',
      PAGE_RATE_LIMIT_CHECKOUTS_PER_ADDRESS: '4',
      PAGE_RATE_LIMIT_OPEN_CHECKOUTS_PER_LINK: '12',
      TRUST_PROXY_HOPS: '1',
    });
    expect(config).toMatchObject({
      pageLimits: { windowSeconds: 60, perAddress: 5, perLink: 7, perCard: 2, checkoutsPerAddress: 4, openCheckoutsPerLink: 12 },
      trustProxyHops: 1,
    });
  });

  it.each([
    ['PAGE_RATE_LIMIT_PER_CARD', '0'],
    ['PAGE_RATE_LIMIT_OPEN_CHECKOUTS_PER_LINK', '0'],
    ['PAGE_RATE_LIMIT_OPEN_CHECKOUTS_PER_LINK', '10001'],
    ['PAGE_RATE_LIMIT_WINDOW_SECONDS', '86401'],
    ['TRUST_PROXY_HOPS', '-1'],
  ])('rejects %s=%s with a ConfigError naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});

describe('loadConfig: Stripe notifications', () => {
  it('counts posts per client address, 300 per 10 seconds unless told', () => {
    expect(loadConfig({}).notificationLimits).toEqual({ perAddress: 300, windowSeconds: 10 });
    expect(loadConfig({ STRIPE_WEBHOOK_RATE_LIMIT_PER_ADDRESS: '50', STRIPE_WEBHOOK_RATE_LIMIT_WINDOW_SECONDS: '1' }).notificationLimits).toEqual({
      perAddress: 50,
      windowSeconds: 1,
    });
  });

  it.each([
    ['STRIPE_WEBHOOK_RATE_LIMIT_PER_ADDRESS', '0'],
    ['STRIPE_WEBHOOK_RATE_LIMIT_WINDOW_SECONDS', '3601'],
  ])('rejects %s=%s with a ConfigError naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});

describe('loadConfig: attempts at members’ secrets and password resets', () => {
  it('limits failed attempts per account from an address, per address and per account, and resets, unless told', () => {
    expect(loadConfig({})).toMatchObject({
      signInLimits: {
        perAccount: { limit: 10, seconds: 900 },
        perAddress: { limit: 50, seconds: 900 },
        accountCeiling: { limit: 100, seconds: 900 },
        noticeAfter: 10,
      },
      passwordResets: { perAccount: { limit: 3, seconds: 3_600 }, perAddress: { limit: 10, seconds: 3_600 }, linkMinutes: 60 },
    });
  });

  it('reads each of them', () => {
    const config = loadConfig({
      LOGIN_FAILURES_PER_ACCOUNT: '5',
      LOGIN_FAILURES_PER_ADDRESS: '20',
      LOGIN_FAILURES_ACCOUNT_CEILING: '500',
      LOGIN_FAILURES_NOTICE_AFTER: '3',
      PASSWORD_RESETS_PER_ACCOUNT: '2',
      PASSWORD_RESETS_PER_ADDRESS: '30',
      PASSWORD_RESET_LINK_MINUTES: '15',
    });
    expect(config.signInLimits).toEqual({
      perAccount: { limit: 5, seconds: 900 },
      perAddress: { limit: 20, seconds: 900 },
      accountCeiling: { limit: 500, seconds: 900 },
      noticeAfter: 3,
    });
    expect(config.passwordResets).toEqual({ perAccount: { limit: 2, seconds: 3_600 }, perAddress: { limit: 30, seconds: 3_600 }, linkMinutes: 15 });
  });

  it.each([
    ['LOGIN_FAILURES_ACCOUNT_CEILING', '0'],
    ['LOGIN_FAILURES_NOTICE_AFTER', '0'],
    ['PASSWORD_RESETS_PER_ACCOUNT', '0'],
    ['PASSWORD_RESET_LINK_MINUTES', '4'],
    ['PASSWORD_RESET_LINK_MINUTES', '1441'],
  ])('rejects %s=%s with a ConfigError naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('refuses a ceiling per account below the limit per account from one address', () => {
    expect(() => loadConfig({ LOGIN_FAILURES_PER_ACCOUNT: '20', LOGIN_FAILURES_ACCOUNT_CEILING: '10' })).toThrow(
      'LOGIN_FAILURES_ACCOUNT_CEILING must not be lower than LOGIN_FAILURES_PER_ACCOUNT',
    );
  });
});

describe('loadConfig: METRICS_TOKEN and METRICS_PORT', () => {
  const token = 'a'.repeat(32);

  it('turns /metrics off without a token, on with one, and on a port of its own with METRICS_PORT', () => {
    expect(loadConfig({}).metrics).toEqual({ token: undefined, port: undefined });
    expect(loadConfig({ METRICS_TOKEN: token }).metrics).toEqual({ token, port: undefined });
    expect(loadConfig({ METRICS_TOKEN: token, METRICS_PORT: '9464' }).metrics).toEqual({ token, port: 9464 });
  });

  it('refuses a short token, a port without a token, and the service port', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: `${token} ${token}` })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: '9464' })).toThrow('METRICS_PORT needs METRICS_TOKEN');
    expect(() => loadConfig({ METRICS_TOKEN: token, METRICS_PORT: '3000' })).toThrow('METRICS_PORT must differ from PORT');
    expect(() => loadConfig({ METRICS_TOKEN: token, METRICS_PORT: '0' })).toThrow(ConfigError);
  });
});
