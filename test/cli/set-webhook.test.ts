// `npm run --silent set-webhook -- --business "<name>" --url <url>` prints the signature key alone on
// its last line, keeps it when only the URL changes, and refuses URLs the service must never call.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBusinessByName, findWebhook } from '../../server/store/businesses.js';
import { openDatabase } from '../../server/store/database.js';
import { ROOT } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

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
  const result = spawnSync('npm', ['run', '--silent', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL, PORT: '3000', PUBLIC_URL: 'https://pay.example.com', ...env }, encoding: 'utf8' });
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
      expect(await findWebhook(db, business!.id)).toEqual({ url: 'https://93.184.215.14/v2/hooks', secret: rotated.last });
    } finally {
      await db.close();
    }
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
      ['http://[fd00:ec2::254]/latest/meta-data/', /unique local IPv6/],
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
    const allowed = runWith({ WEBHOOK_ALLOW_PRIVATE: 'on' }, 'set-webhook', '--', '--business', 'Acme', '--url', 'http://127.0.0.1:8081/hooks');
    expect(allowed.code).toBe(0);
    expect(allowed.last).toMatch(/^whsec_/);
    for (const url of ['http://127.0.0.2:3000/hooks', 'http://[::ffff:127.0.0.1]:3000/hooks']) {
      const refused = runWith({ WEBHOOK_ALLOW_PRIVATE: 'on' }, 'set-webhook', '--', '--business', 'Acme', '--url', url);
      expect(refused.code, url).toBe(2);
      expect(refused.stderr, url).toMatch(/points at this service itself/);
    }
  });
});
