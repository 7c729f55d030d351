// Businesses and their API keys, against the database DATABASE_URL names (default: the embedded one).
//   create-key --business <id or "name">   a name no business has creates one; prints the new key alone on the last line
//   revoke-key --key <key> | --prefix <prefix>
//   list-keys
//   set-webhook --business <id or "name"> --url <url> [--rotate]   prints the signature key alone on the last line
//   set-webhook --business <id or "name"> --clear
//   set-provider --business <id or name> --provider stripe   the secret key and webhook signing secret from
//                STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or asked on standard input (never arguments)
//   set-provider --business <id or name> --provider sandbox
//   show-business --business <id or name>     the business, its acquirer and its keys, never a secret
//   create-user --business <id or name> --email <e-mail> --role <role>   prints a one-time link (72 h) to the
//                page where the user sets their name and password; with NEW_USER_PASSWORD set, sets it at once
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../server/config.js';
import { issueKey, listKeys, revokeKey } from '../server/store/api-keys.js';
import { randomBytes } from 'node:crypto';
import { findBusinessByName, findOrCreateBusiness, findWebhook, setWebhook } from '../server/store/businesses.js';
import { sealLegacyWebhookSecrets } from '../server/store/seal-legacy-secrets.js';
import { loadMasterKey, SecretsKeyError } from '../server/secrets/key-source.js';
import type { MasterKey } from '../server/secrets/master-key.js';
import { SecretUnreadableError } from '../server/secrets/seal.js';
import { checkWebhookUrl } from '../server/outbox/webhook-target.js';
import { openDatabase, type Database } from '../server/store/database.js';
import { listAcquirers, setAcquirer, type AcquirerSummary } from '../server/store/acquirer-settings.js';
import { STRIPE_WEBHOOK_EVENTS } from '../server/acquirers/stripe.js';
import { isEmail } from '../server/domain/email.js';
import { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, stripeWebhookUrl } from '../server/domain/stripe-secrets.js';
import { ROLES, isRole } from '../server/domain/permissions.js';
import { createMember, createSetupLink } from '../server/usecases/members/accounts.js';

class UsageError extends Error {}

const commands: Record<string, (db: Database, args: string[], secretsKey: MasterKey) => Promise<void>> = {
  async 'create-key'(db, args) {
    const { values } = parseArgs({ args, options: { business: { type: 'string' } } });
    const given = values.business?.trim();
    if (!given) throw new UsageError('create-key needs --business <business_id or "name">');
    if (given.length > 200) throw new UsageError('--business must be at most 200 characters');
    // A number names an existing business (its name may have changed since, in the console); a name
    // no business has makes a new one, and says so.
    const existing = /^\d+$/.test(given) ? await businessNamed(db, given) : await findBusinessByName(db, given);
    const business = existing
      ? { id: 'business_id' in existing ? existing.business_id : existing.id, name: existing.name }
      : await findOrCreateBusiness(db, given);
    if (!existing) console.error(`No business was named "${business.name}": created it (business_id ${business.id}).`);
    const { key, prefix } = await issueKey(db, business.id, { createdBy: 'cli' });
    console.error(`Key ${prefix}… issued for "${business.name}" (business_id ${business.id}). It is shown once; store it now.`);
    console.log(key);
  },
  async 'revoke-key'(db, args) {
    const { values } = parseArgs({ args, options: { key: { type: 'string' }, prefix: { type: 'string' } } });
    const target = values.key ?? values.prefix;
    if (!target) throw new UsageError('revoke-key needs --key <key> or --prefix <prefix>');
    const revoked = await revokeKey(db, target);
    if (revoked === 0) throw new UsageError('no live key matches');
    console.log(`revoked ${revoked} key${revoked === 1 ? '' : 's'}`);
  },
  async 'set-webhook'(db, args, secretsKey) {
    const { values } = parseArgs({
      args,
      options: { business: { type: 'string' }, url: { type: 'string' }, rotate: { type: 'boolean' }, clear: { type: 'boolean' } },
    });
    if (!values.business?.trim() || (!values.url && !values.clear))
      throw new UsageError('set-webhook needs --business <business_id or "name"> and --url <url> (or --clear)');
    const found = await businessNamed(db, values.business);
    const business = { id: found.business_id, name: found.name };
    if (values.clear) {
      await setWebhook(db, business.id, null, secretsKey);
      console.log(`webhook cleared for "${business.name}"`);
      return;
    }
    const config = loadConfig();
    const serviceUrls = [config.publicUrl ?? `http://localhost:${config.port}`, `http://localhost:${config.port}`];
    // The same check as at each delivery, the host resolved now: a URL that leads to this machine, a
    // private network or a metadata service is refused before any event is queued for it.
    const check = await checkWebhookUrl(values.url!, {
      allowPrivate: config.outbox.webhookAllowPrivate,
      allowedPorts: config.outbox.webhookAllowedPorts,
      serviceUrls,
    });
    if (!check.ok) throw new UsageError(check.problem);
    // The key survives a change of URL, so receivers keep verifying; --rotate issues a new one.
    const existing = values.rotate ? undefined : await keptWebhookKey(db, business.id, secretsKey);
    const secret = existing ?? `whsec_${randomBytes(32).toString('base64')}`;
    await setWebhook(db, business.id, { url: values.url!, secret }, secretsKey);
    console.error(`Webhook for "${business.name}" set to ${values.url}. Events are signed with this key:`);
    console.log(secret);
  },
  async 'list-keys'(db) {
    const acquirers = new Map((await listAcquirers(db)).map((row) => [row.name, row.provider]));
    for (const key of await listKeys(db)) {
      console.log(`${key.prefix}…  ${key.revoked_at ? 'revoked' : 'live   '}  ${(acquirers.get(key.business) ?? 'sandbox').padEnd(7)}  ${key.business}`);
    }
  },
  async 'set-provider'(db, args, secretsKey) {
    refuseSecretArguments(args);
    const { values } = parseArgs({ args, options: { business: { type: 'string' }, provider: { type: 'string' } } });
    const business = await businessNamed(db, values.business);
    const provider = values.provider;
    if (provider !== 'stripe' && provider !== 'sandbox') throw new UsageError('set-provider needs --provider stripe or --provider sandbox');
    const { secretKey, webhookSecret } = await stripeSecrets(provider, business);
    if (secretKey !== undefined && !STRIPE_SECRET_KEY.test(secretKey)) {
      throw new UsageError('the Stripe secret key must be a secret or restricted key (sk_test_..., sk_live_..., rk_test_... or rk_live_...)');
    }
    if (webhookSecret !== undefined && !STRIPE_WEBHOOK_SECRET.test(webhookSecret))
      throw new UsageError('the webhook signing secret must be a Stripe webhook signing secret (whsec_...)');
    if (provider === 'stripe' && !secretKey && !business.stripe_key_hint)
      throw new UsageError(`set-provider --provider stripe needs the Stripe secret key the first time: ${HOW_TO_GIVE_SECRETS}`);
    await setAcquirer(db, business.business_id, provider, { ...(secretKey ? { secretKey } : {}), ...(webhookSecret ? { webhookSecret } : {}) }, secretsKey);
    const now = (await listAcquirers(db, business.business_id))[0]!;
    console.log(`"${now.name}" (business_id ${now.business_id}) now takes payments through ${now.provider}.`);
    if (now.provider === 'stripe') printStripeSetup(now);
  },
  async 'create-user'(db, args) {
    refuseSecretArguments(args, ['--password'], 'set NEW_USER_PASSWORD in its environment, or leave it out for a link');
    const { values } = parseArgs({ args, options: { business: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } } });
    const business = await businessNamed(db, values.business);
    const email = values.email?.trim() ?? '';
    if (!isEmail(email)) throw new UsageError('create-user needs --email <a valid e-mail address>');
    if (!isRole(values.role)) throw new UsageError(`create-user needs --role <${ROLES.join('|')}>`);
    const password = process.env.NEW_USER_PASSWORD;
    if (password) {
      const outcome = await createMember({ db }, { businessId: business.business_id, email, role: values.role, password });
      if (outcome.kind === 'weak_password') throw new UsageError(`NEW_USER_PASSWORD: ${outcome.message}`);
      console.log(`${email} is now ${values.role} of "${business.name}" (business_id ${business.business_id}) and can sign in with POST /api/auth/login.`);
      return;
    }
    const config = loadConfig();
    const link = await createSetupLink(
      { db, publicUrl: config.publicUrl ?? `http://localhost:${config.port}` },
      { businessId: business.business_id, email, role: values.role },
    );
    console.error(`A one-time link (valid 72 hours) for ${email} to set their name and password and join "${business.name}" as ${values.role}:`);
    console.log(link);
  },
  async 'show-business'(db, args) {
    const { values } = parseArgs({ args, options: { business: { type: 'string' } } });
    const business = await businessNamed(db, values.business);
    const keys = (await listKeys(db)).filter((key) => key.business === business.name);
    console.log(`business_id  ${business.business_id}`);
    console.log(`name         ${business.name}`);
    console.log(`provider     ${business.provider}`);
    console.log(`stripe key   ${business.stripe_key_hint ?? '(none)'}`);
    console.log(`stripe webhook signing secret ${business.stripe_webhook_secret_set ? 'set' : '(none)'}`);
    console.log(`api keys     ${keys.map((key) => `${key.prefix}… ${key.revoked_at ? 'revoked' : 'live'}`).join(', ') || '(none)'}`);
    if (business.provider === 'stripe') printStripeSetup(business);
  },
};

const HOW_TO_GIVE_SECRETS =
  'set STRIPE_SECRET_KEY (and STRIPE_WEBHOOK_SECRET) in its environment, or run it at a terminal and type them when asked, or pipe them on standard input, one a line';

/**
 * Secrets on the command line are seen by every user of the machine (ps, /proc/<pid>/cmdline) and kept
 * in shell history: refused, without repeating the value.
 */
function refuseSecretArguments(args: string[], options = ['--secret-key', '--webhook-secret'], how = HOW_TO_GIVE_SECRETS): void {
  for (const option of options) {
    if (args.some((arg) => arg === option || arg.startsWith(`${option}=`)))
      throw new UsageError(`${option} is not taken on the command line, where other users and the shell history can read it: ${how}`);
  }
}

/**
 * The Stripe secrets to store: each from its environment variable, else (for --provider stripe) asked on
 * standard input, where an empty answer (or none) keeps what is stored.
 */
async function stripeSecrets(provider: 'stripe' | 'sandbox', business: AcquirerSummary): Promise<{ secretKey?: string; webhookSecret?: string }> {
  const input = new SecretInput();
  try {
    const given = async (variable: string, question: string) => {
      const value = process.env[variable]?.trim();
      if (value) {
        console.error(`Using ${variable}.`);
        return value;
      }
      return provider === 'stripe' ? (await input.ask(question))?.trim() || undefined : undefined;
    };
    const secretKey = await given(
      'STRIPE_SECRET_KEY',
      `Stripe secret key (sk_live_..., or a restricted rk_live_...)${business.stripe_key_hint ? `, Enter keeps ${business.stripe_key_hint}` : ''}: `,
    );
    const webhookSecret = await given(
      'STRIPE_WEBHOOK_SECRET',
      `Webhook signing secret (whsec_...), Enter ${business.stripe_webhook_secret_set ? 'keeps the stored one' : 'to set it later'}: `,
    );
    return { ...(secretKey ? { secretKey } : {}), ...(webhookSecret ? { webhookSecret } : {}) };
  } finally {
    input.close();
  }
}

/** Answers read from standard input: typed without echo at a terminal, a line each when piped. */
class SecretInput {
  private lines: ReturnType<typeof createInterface> | undefined;
  private pending: AsyncIterator<string> | undefined;

  async ask(question: string): Promise<string | undefined> {
    if (process.stdin.isTTY) return askUnechoed(question);
    this.lines ??= createInterface({ input: process.stdin, crlfDelay: Infinity });
    this.pending ??= this.lines[Symbol.asyncIterator]();
    const next = await this.pending.next();
    return next.done ? undefined : next.value;
  }

  close(): void {
    this.lines?.close();
    // Lines left unread must not keep the process waiting for more.
    if (this.lines) process.stdin.destroy();
  }
}

/** Asks at the terminal; what is typed is not shown (the prompt goes to stderr, stdout stays for results). */
function askUnechoed(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const terminal = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve, reject) => {
    terminal.on('SIGINT', () => {
      terminal.close();
      process.stderr.write('\n');
      reject(new UsageError('cancelled'));
    });
    terminal.question(question, (answer) => {
      terminal.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}

/** A business by its id (digits) or its name. */
async function businessNamed(db: Database, given: string | undefined): Promise<AcquirerSummary> {
  const wanted = given?.trim();
  if (!wanted) throw new UsageError('needs --business <business_id or "name">');
  const all = await listAcquirers(db);
  const found = /^\d+$/.test(wanted) ? all.find((row) => row.business_id === Number(wanted)) : all.find((row) => row.name === wanted);
  if (!found) throw new UsageError(`no business ${/^\d+$/.test(wanted) ? `with business_id ${wanted}` : `named "${wanted}"`} (create-key creates one)`);
  return found;
}

function printStripeSetup(business: AcquirerSummary): void {
  const config = loadConfig();
  const base = config.publicUrl ?? `http://localhost:${config.port}`;
  console.log(`Stripe account key ${business.stripe_key_hint ?? '(none)'}; webhook signing secret ${business.stripe_webhook_secret_set ? 'set' : 'NOT SET'}.`);
  console.log(`Register this webhook endpoint at Stripe (Developers > Webhooks): ${stripeWebhookUrl(base, business.business_id)}`);
  console.log(`with these events: ${STRIPE_WEBHOOK_EVENTS.join(', ')}`);
  if (!business.stripe_webhook_secret_set)
    console.log("then run set-provider again with the endpoint's signing secret (whsec_...) in STRIPE_WEBHOOK_SECRET, or typed when asked.");
}

async function keptWebhookKey(db: Database, businessId: number, secretsKey: MasterKey): Promise<string | undefined> {
  try {
    return (await findWebhook(db, businessId, secretsKey))?.secret;
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    throw new UsageError(
      `the stored webhook key cannot be decrypted with the configured key: ${error.message}. Restore that key, or issue a new webhook key with --rotate`,
    );
  }
}

async function main([command = '', ...args]: string[]): Promise<number> {
  const run = commands[command];
  if (!run) {
    console.error(`usage: keys.ts <${Object.keys(commands).join('|')}> [options]`);
    return 2;
  }
  let config;
  let secretsKey: MasterKey;
  try {
    config = loadConfig();
    secretsKey = loadMasterKey(config.databaseUrl, config.secrets).key;
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof SecretsKeyError)) throw error;
    console.error(`${command}: configuration error: ${error.message}`);
    return 2;
  }
  const db = openDatabase(config.databaseUrl, config.database);
  try {
    await db.migrate();
    await sealLegacyWebhookSecrets(config.databaseUrl, secretsKey);
    await run(db, args, secretsKey);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    console.error(`${command}: ${error.message}`);
    return 2;
  } finally {
    await db.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
