// `npm run --silent set-provider -- --business <id> --provider stripe`, the secret key and webhook signing
// secret in STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET or typed when asked (never arguments: those are
// visible to every user in ps and /proc, and kept in shell history), switches a business to Stripe and
// says which webhook address and events to register at Stripe; the secrets are stored sealed (never in
// clear, in the row or the SQLite file) and never printed again: show-business and list-keys show the
// acquirer and a hint of the key only.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAcquirerSettings } from '../../server/store/acquirer-settings.js';
import { findBusinessByName } from '../../server/store/businesses.js';
import { knexFor, openDatabase } from '../../server/store/database.js';
import { ROOT } from '../support/child.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { secretsEnv, secretsKeyFor } from '../support/secrets.js';
import { waitFor } from '../support/wait.js';
import { npmScript } from '../support/npm-script.js';

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

/** The environment of every run: none of the tester's own Stripe variables, only what a test gives. */
function envWith(given: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('STRIPE_')));
  return { ...env, ...secretsEnv(DATABASE_URL), DATABASE_URL, PORT: '3000', PUBLIC_URL: 'https://pay.example.com', ...given };
}

/** Runs a command of scripts/keys.ts; standard input is `input` (empty unless given), then closed. */
function run(args: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  const script = npmScript(args);
  const result = spawnSync(script.command, script.args, { cwd: ROOT, env: envWith(options.env), input: options.input ?? '', encoding: 'utf8' });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

async function stored(name: string) {
  const db = openDatabase(DATABASE_URL);
  try {
    const business = (await findBusinessByName(db, name))!;
    return { id: business.id, settings: await findAcquirerSettings(db, business.id, secretsKeyFor(DATABASE_URL)) };
  } finally {
    await db.close();
  }
}

describe('set-provider', () => {
  it('switches a business to Stripe, prints the webhook to register, stores the secrets sealed, and shows only a hint', { timeout: 120_000 }, async () => {
    expect(run(['create-key', '--', '--business', 'Kedai Runcit']).code).toBe(0);
    const db = openDatabase(DATABASE_URL);
    const business = (await findBusinessByName(db, 'Kedai Runcit'))!;
    try {
      const first = run(['set-provider', '--', '--business', String(business.id), '--provider', 'stripe'], {
        env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
      });
      expect(first.code).toBe(0);
      expect(first.out).toContain(`https://pay.example.com/stripe/webhooks/${business.id}`);
      expect(first.out).toContain('checkout.session.completed');
      expect(first.out).toContain('checkout.session.async_payment_succeeded');
      expect(first.out).toContain('charge.refunded');
      expect(first.out).toContain('sk_test_…pQrS');
      expect(first.out).not.toContain(SECRET_KEY);
      expect(first.out).not.toContain(WEBHOOK_SECRET);

      expect(await findAcquirerSettings(db, business.id, secretsKeyFor(DATABASE_URL))).toEqual({
        acquirer: 'stripe',
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

      const shown = run(['show-business', '--', '--business', 'Kedai Runcit']);
      expect(shown.code).toBe(0);
      expect(shown.out).toMatch(/provider\s+stripe/);
      expect(shown.out).toContain('sk_test_…pQrS');
      expect(shown.out).not.toContain(SECRET_KEY);
      expect(shown.out).not.toContain(WEBHOOK_SECRET);
      const listed = run(['list-keys']);
      expect(listed.out).toMatch(/live\s+stripe\s+Kedai Runcit/);

      // Back to the sandbox: new payments go there; the Stripe secrets stay for refunds of earlier payments.
      expect(run(['set-provider', '--', '--business', 'Kedai Runcit', '--provider', 'sandbox']).code).toBe(0);
      expect(await findAcquirerSettings(db, business.id, secretsKeyFor(DATABASE_URL))).toMatchObject({
        acquirer: 'sandbox',
        stripe: { secretKey: SECRET_KEY },
      });
      expect(run(['list-keys']).out).toMatch(/live\s+sandbox\s+Kedai Runcit/);
    } finally {
      await db.close();
    }
  });

  it('reads the secrets piped on standard input, a line each, when the variables are not set', { timeout: 120_000 }, async () => {
    expect(run(['create-key', '--', '--business', 'Warung Piped']).code).toBe(0);
    const answer = run(['set-provider', '--', '--business', 'Warung Piped', '--provider', 'stripe'], { input: `${SECRET_KEY}\n${WEBHOOK_SECRET}\n` });
    expect(answer.code, answer.out).toBe(0);
    expect(answer.out).not.toContain(SECRET_KEY);
    expect(answer.out).not.toContain(WEBHOOK_SECRET);
    expect((await stored('Warung Piped')).settings).toEqual({ acquirer: 'stripe', stripe: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET } });
    // Again, with empty lines: both kept. The variable, when set, wins over standard input.
    const other = 'whsec_9b8Vc7Xz6Lk5Jh4Gf3Ds2Aq1WeRt';
    expect(run(['set-provider', '--', '--business', 'Warung Piped', '--provider', 'stripe'], { input: '\n\n' }).code).toBe(0);
    expect(run(['set-provider', '--', '--business', 'Warung Piped', '--provider', 'stripe'], { env: { STRIPE_WEBHOOK_SECRET: other }, input: '\n' }).code).toBe(
      0,
    );
    expect((await stored('Warung Piped')).settings).toEqual({ acquirer: 'stripe', stripe: { secretKey: SECRET_KEY, webhookSecret: other } });
  });

  it('refuses the secrets as arguments, says how to give them, and never repeats them', { timeout: 120_000 }, async () => {
    expect(run(['create-key', '--', '--business', 'Kedai Args']).code).toBe(0);
    for (const args of [
      ['--secret-key', SECRET_KEY],
      [`--secret-key=${SECRET_KEY}`],
      ['--webhook-secret', WEBHOOK_SECRET],
      [`--webhook-secret=${WEBHOOK_SECRET}`],
    ]) {
      const answer = run(['set-provider', '--', '--business', 'Kedai Args', '--provider', 'stripe', ...args], { input: `${SECRET_KEY}\n` });
      expect(answer.code, args.join(' ')).toBe(2);
      expect(answer.out).toMatch(/^set-provider: --(secret-key|webhook-secret) is not taken on the command line/m);
      expect(answer.out).toContain('STRIPE_SECRET_KEY');
      expect(answer.out).not.toContain(SECRET_KEY);
      expect(answer.out).not.toContain(WEBHOOK_SECRET);
    }
    expect((await stored('Kedai Args')).settings).toEqual({ acquirer: 'sandbox', stripe: null });
  });

  // `script` gives the command a terminal of its own, as a person at a shell would have.
  it.skipIf(!existsSync('/usr/bin/script'))('asks at a terminal without showing what is typed', { timeout: 120_000 }, async () => {
    expect(run(['create-key', '--', '--business', 'Kedai Terminal']).code).toBe(0);
    const child = spawn('/usr/bin/script', ['-qfec', 'npm run --silent set-provider -- --business "Kedai Terminal" --provider stripe', '/dev/null'], {
      cwd: ROOT,
      env: envWith(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor('the question for the key', () => screen.includes('Stripe secret key'), 60_000);
      child.stdin.write(`${SECRET_KEY}\r`);
      await waitFor('the question for the signing secret', () => screen.includes('Webhook signing secret'), 30_000);
      child.stdin.write(`${WEBHOOK_SECRET}\r`);
      expect(await exited, screen).toBe(0);
    } finally {
      child.kill();
    }
    expect(screen).toContain('now takes payments through stripe');
    expect(screen).not.toContain(SECRET_KEY.slice(8));
    expect(screen).not.toContain(WEBHOOK_SECRET.slice(6));
    expect((await stored('Kedai Terminal')).settings).toEqual({ acquirer: 'stripe', stripe: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET } });
  });

  it('refuses what is not a Stripe key or signing secret, an unknown business, and Stripe without a key', { timeout: 120_000 }, () => {
    expect(run(['create-key', '--', '--business', 'Gerai']).code).toBe(0);
    const bad: [string[], Record<string, string>][] = [
      [['--business', 'Gerai', '--provider', 'stripe'], { STRIPE_SECRET_KEY: 'pk_test_123456789' }],
      [['--business', 'Gerai', '--provider', 'stripe'], { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: 'secret' }],
      [['--business', 'Gerai', '--provider', 'paypal'], {}],
      [['--business', 'Gerai', '--provider', 'stripe'], {}],
      [['--business', '999999', '--provider', 'sandbox'], {}],
      [['--provider', 'sandbox'], {}],
    ];
    for (const [args, env] of bad) {
      const answer = run(['set-provider', '--', ...args], { env });
      expect(answer.code, args.join(' ')).toBe(2);
      expect(answer.out).toMatch(/^set-provider: /m);
      expect(answer.out).not.toContain('pk_test_123456789');
    }
  });
});
