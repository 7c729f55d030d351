// `npm run --silent set-provider -- --business <id> --provider stripe --secret-key sk_... --webhook-secret whsec_...`
// switches a business to Stripe and says which webhook address and events to register at Stripe;
// the secrets are stored sealed (never in clear, in the row or the SQLite file) and never printed
// again: show-business and list-keys show the acquirer and a hint of the key only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAcquirerSettings } from '../../server/store/acquirer-settings.js';
import { findBusinessByName } from '../../server/store/businesses.js';
import { knexFor, openDatabase } from '../../server/store/database.js';
import { ROOT } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { secretsEnv, secretsKeyFor } from '../support/secrets.js';

const SECRET_KEY = 'sk_test_51Hq7NaCLbGqWyZ2xN3u8RkF0aBcDeFgHiJkLmN9pQrS';
const WEBHOOK_SECRET = 'whsec_5a7Qn2vB9xYz4LmP0kR8sT6uW3eC1dF';

const dir = mkdtempSync(join(tmpdir(), 'payments-provider-cli-'));
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

function run(...args: string[]) {
  const result = spawnSync('npm', ['run', '--silent', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...secretsEnv(DATABASE_URL), DATABASE_URL, PORT: '3000', PUBLIC_URL: 'https://pay.example.com' },
    encoding: 'utf8',
  });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('set-provider', () => {
  it('switches a business to Stripe, prints the webhook to register, stores the secrets sealed, and shows only a hint', { timeout: 120_000 }, async () => {
    expect(run('create-key', '--', '--business', 'Kedai Runcit').code).toBe(0);
    const db = openDatabase(DATABASE_URL);
    const business = (await findBusinessByName(db, 'Kedai Runcit'))!;
    try {
      const first = run(
        'set-provider',
        '--',
        '--business',
        String(business.id),
        '--provider',
        'stripe',
        '--secret-key',
        SECRET_KEY,
        '--webhook-secret',
        WEBHOOK_SECRET,
      );
      expect(first.code).toBe(0);
      expect(first.out).toContain(`https://pay.example.com/stripe/webhooks/${business.id}`);
      expect(first.out).toContain('checkout.session.completed');
      expect(first.out).toContain('checkout.session.async_payment_succeeded');
      expect(first.out).toContain('charge.refunded');
      expect(first.out).toContain('sk_test_…pQrS');
      expect(first.out).not.toContain(SECRET_KEY);
      expect(first.out).not.toContain(WEBHOOK_SECRET);

      expect(await findAcquirerSettings(db, business.id, secretsKeyFor(DATABASE_URL))).toEqual({
        provider: 'stripe',
        stripe: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET },
      });
      const sql = knexFor(DATABASE_URL);
      try {
        const row = JSON.stringify(await sql('businesses').where({ id: business.id }).first());
        expect(row).not.toContain(SECRET_KEY.slice(8));
        expect(row).not.toContain(WEBHOOK_SECRET.slice(6));
        expect(row).toContain('"stripe_key_hint":"sk_test_…pQrS"');
      } finally {
        await sql.destroy();
      }
      if (DATABASE_URL.startsWith('sqlite:')) {
        for (const file of readdirSync(dir).filter((name) => name.endsWith('.sqlite') || name.endsWith('-wal'))) {
          const bytes = readFileSync(join(dir, file));
          expect(bytes.includes(SECRET_KEY.slice(8)), file).toBe(false);
          expect(bytes.includes(WEBHOOK_SECRET.slice(6)), file).toBe(false);
        }
      }

      const shown = run('show-business', '--', '--business', 'Kedai Runcit');
      expect(shown.code).toBe(0);
      expect(shown.out).toMatch(/provider\s+stripe/);
      expect(shown.out).toContain('sk_test_…pQrS');
      expect(shown.out).not.toContain(SECRET_KEY);
      expect(shown.out).not.toContain(WEBHOOK_SECRET);
      const listed = run('list-keys');
      expect(listed.out).toMatch(/live\s+stripe\s+Kedai Runcit/);

      // Back to the sandbox: new payments go there; the Stripe secrets stay for refunds of earlier payments.
      expect(run('set-provider', '--', '--business', 'Kedai Runcit', '--provider', 'sandbox').code).toBe(0);
      expect(await findAcquirerSettings(db, business.id, secretsKeyFor(DATABASE_URL))).toMatchObject({
        provider: 'sandbox',
        stripe: { secretKey: SECRET_KEY },
      });
      expect(run('list-keys').out).toMatch(/live\s+sandbox\s+Kedai Runcit/);
    } finally {
      await db.close();
    }
  });

  it('refuses what is not a Stripe key or signing secret, an unknown business, and Stripe without a key', { timeout: 120_000 }, () => {
    expect(run('create-key', '--', '--business', 'Gerai').code).toBe(0);
    const bad = [
      ['--business', 'Gerai', '--provider', 'stripe', '--secret-key', 'pk_test_123456789'],
      ['--business', 'Gerai', '--provider', 'stripe', '--secret-key', SECRET_KEY, '--webhook-secret', 'secret'],
      ['--business', 'Gerai', '--provider', 'paypal'],
      ['--business', 'Gerai', '--provider', 'stripe'],
      ['--business', '999999', '--provider', 'sandbox'],
      ['--provider', 'sandbox'],
    ];
    for (const args of bad) {
      const answer = run('set-provider', '--', ...args);
      expect(answer.code, args.join(' ')).toBe(2);
      expect(answer.out).toMatch(/^set-provider: /m);
    }
  });
});
