// `npm run --silent set-webhook -- --business "<name>" --url <url>` prints the signature key alone on
// its last line, keeps it when only the URL changes, stores it sealed (never in clear), and refuses
// URLs the service must never call.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBusinessByName, findWebhook } from '../../server/store/businesses.js';
import { knexFor, openDatabase } from '../../server/store/database.js';
import { ROOT } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { secretsEnv, secretsKeyFor } from '../support/secrets.js';
import { npmScript } from '../support/npm-script.js';

const dir = mkdtempSync(join(tmpdir(), 'payments-webhook-cli-'));
let database: TestDatabase;
let DATABASE_URL: string;
beforeAll(async () => {
  database = await createTestDatabase(dir);
  DATABASE_URL = database.url;
});
afterAll(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

// No URL here has a name to resolve (nothing in a test resolves a name for real): names are covered,
// with a stubbed resolver, by the same check in test/outbox/ssrf.test.ts.
function run(...args: string[]) {
  return runWith({}, ...args);
}

function runWith(env: Record<string, string>, ...args: string[]) {
  const script = npmScript(args);
  const result = spawnSync(script.command, script.args, {
    cwd: ROOT,
    env: { ...process.env, ...secretsEnv(DATABASE_URL), DATABASE_URL, PORT: '3000', PUBLIC_URL: 'https://pay.example.com', ...env },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, last: result.stdout.trim().split('\n').pop() ?? '' };
}

describe('set-webhook', () => {
  it('sets the URL and prints a whsec_ signature key; a new URL keeps the key unless --rotate', { timeout: 90_000 }, async () => {
    expect(run('create-key', '--', '--business', 'Acme').code).toBe(0);
    const first = run('set-webhook', '--', '--business', 'Acme', '--url', 'https://93.184.215.14/hooks');
    expect(first.code).toBe(0);
    expect(first.last).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const moved = run('set-webhook', '--', '--business', 'Acme', '--url', 'https://93.184.215.14/v2/hooks');
    expect(moved.last).toBe(first.last);
    const rotated = run('set-webhook', '--', '--business', 'Acme', '--url', 'https://93.184.215.14/v2/hooks', '--rotate');
    expect(rotated.last).toMatch(/^whsec_/);
    expect(rotated.last).not.toBe(first.last);

    const db = openDatabase(DATABASE_URL);
    try {
      const business = await findBusinessByName(db, 'Acme');
      expect(await findWebhook(db, business!.id, secretsKeyFor(DATABASE_URL))).toEqual({ url: 'https://93.184.215.14/v2/hooks', secret: rotated.last });
    } finally {
      await db.close();
    }
  });

  it('stores the key sealed: neither the row nor the database file holds it', { timeout: 90_000 }, async () => {
    expect(run('create-key', '--', '--business', 'Sealed Co').code).toBe(0);
    const printed = run('set-webhook', '--', '--business', 'Sealed Co', '--url', 'https://93.184.215.14/hooks').last;
    expect(printed).toMatch(/^whsec_/);
    const encodings = (key: string) => [
      key,
      key.slice('whsec_'.length),
      Buffer.from(key.slice('whsec_'.length), 'base64').toString('hex'),
      Buffer.from(key).toString('base64'),
    ];
    const db = knexFor(DATABASE_URL);
    try {
      const row = await db('webhook_endpoints as e').join('businesses as b', 'b.id', 'e.business_id').where('b.name', 'Sealed Co').select('e.*', 'b.*').first();
      for (const text of encodings(printed)) expect(JSON.stringify(row)).not.toContain(text);
      expect(row.secret).toMatch(/^v1:[\w-]+:[\w-]{16}:[\w-]+:[\w-]{22}$/);
    } finally {
      await db.destroy();
    }
    if (database.kind === 'sqlite') {
      // The database file and its write-ahead log, byte for byte.
      const files = readdirSync(dir).filter((name) => name.startsWith('test.sqlite'));
      expect(files).toContain('test.sqlite');
      for (const name of files) {
        const bytes = readFileSync(join(dir, name));
        for (const text of encodings(printed)) expect(bytes.includes(Buffer.from(text)), `${name} holds ${text}`).toBe(false);
        expect(bytes.includes(Buffer.from(printed.slice('whsec_'.length), 'base64')), `${name} holds the raw key bytes`).toBe(false);
      }
    }
  });

  it('with another SECRETS_KEY, refuses to reuse the stored key and says why; --rotate issues a new one', { timeout: 90_000 }, () => {
    const other = { SECRETS_KEY: 'a'.repeat(64) };
    const kept = runWith(other, 'set-webhook', '--', '--business', 'Acme', '--url', 'https://93.184.215.14/v4/hooks');
    expect(kept.code).toBe(2);
    expect(kept.stdout).toBe('');
    expect(kept.stderr).toMatch(
      /the stored webhook key cannot be decrypted with the configured key: it was sealed with key [\w-]+, but the configured key is [\w-]+/,
    );
    expect(kept.stderr).toMatch(/--rotate/);
    const rotated = runWith(other, 'set-webhook', '--', '--business', 'Acme', '--url', 'https://93.184.215.14/v4/hooks', '--rotate');
    expect(rotated.code).toBe(0);
    expect(rotated.last).toMatch(/^whsec_/);
  });

  it('refuses a malformed SECRETS_KEY before touching the database, without echoing it', { timeout: 90_000 }, () => {
    const result = runWith({ SECRETS_KEY: 'not-a-key-but-a-secret' }, 'set-webhook', '--', '--business', 'Acme', '--url', 'https://acme.example.com/hooks');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/SECRETS_KEY must be 32 bytes written as 64 hexadecimal characters or in base64/);
    expect(result.stderr).not.toContain('not-a-key-but-a-secret');
  });

  it('refuses non-http URLs, the service itself and unknown businesses, exiting 2 with a reason', { timeout: 90_000 }, () => {
    const cases: [string[], RegExp][] = [
      [['--business', 'Acme', '--url', 'ftp://acme.example.com/hooks'], /must use http or https/],
      [['--business', 'Acme', '--url', 'https://pay.example.com/api/payment-links'], /points at this service itself/],
      [['--business', 'Acme', '--url', 'http://localhost:3000/hooks'], /points at this service itself/],
      [['--business', 'Nobody', '--url', 'https://93.184.215.14/hooks'], /no business named "Nobody"/],
      [['--business', 'Acme'], /needs --business/],
    ];
    for (const [args, reason] of cases) {
      const result = run('set-webhook', '--', ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(reason);
      expect(result.stdout).toBe('');
    }
  });

  it('refuses URLs that lead to this machine, a private network or cloud metadata, in any spelling', { timeout: 120_000 }, () => {
    const cases: [string, RegExp][] = [
      ['http://127.0.0.2:8080/hooks', /127\.0\.0\.2 is a loopback address/],
      ['http://[::ffff:127.0.0.1]:8080/hooks', /loopback, IPv4-mapped address/],
      ['http://2130706433:8080/hooks', /127\.0\.0\.1 is a loopback address/],
      ['http://0x7f000001:8080/hooks', /127\.0\.0\.1 is a loopback address/],
      ['http://127.1:8080/hooks', /127\.0\.0\.1 is a loopback address/],
      ['http://0.0.0.0:8080/hooks', /unspecified/],
      ['http://10.0.0.1/hooks', /private \(RFC 1918\)/],
      ['http://100.64.0.1/hooks', /carrier-grade NAT/],
      ['http://169.254.169.254/latest/meta-data/', /link-local \(cloud metadata/],
      ['http://[fd00:ec2::254]/latest/meta-data/', /cloud metadata \(AWS\)/],
      ['http://100.100.100.200/latest/meta-data/', /cloud metadata \(Alibaba Cloud\)/],
    ];
    for (const [url, reason] of cases) {
      const result = run('set-webhook', '--', '--business', 'Acme', '--url', url);
      expect(result.code, url).toBe(2);
      expect(result.stderr, url).toMatch(reason);
      expect(result.stderr, url).toMatch(/webhooks go only to public addresses/);
      expect(result.stdout, url).toBe('');
    }
  });

  it('with WEBHOOK_ALLOW_PRIVATE=on, accepts a loopback receiver but still refuses the service itself', { timeout: 90_000 }, () => {
    // On a port webhooks may use without WEBHOOK_ALLOWED_PORTS (nothing connects to it here).
    // A business of its own: an earlier test left Acme's key sealed under another SECRETS_KEY.
    expect(run('create-key', '--', '--business', 'Loopback Co').code).toBe(0);
    const allowed = runWith({ WEBHOOK_ALLOW_PRIVATE: 'on' }, 'set-webhook', '--', '--business', 'Loopback Co', '--url', 'http://127.0.0.1:8443/hooks');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.last).toMatch(/^whsec_/);
    for (const url of ['http://127.0.0.2:3000/hooks', 'http://[::ffff:127.0.0.1]:3000/hooks']) {
      const refused = runWith({ WEBHOOK_ALLOW_PRIVATE: 'on' }, 'set-webhook', '--', '--business', 'Loopback Co', '--url', url);
      expect(refused.code, url).toBe(2);
      expect(refused.stderr, url).toMatch(/points at this service itself/);
    }
  });
});
