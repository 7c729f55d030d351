// Businesses and their API keys, against the database DATABASE_URL names (default: the embedded one).
//   create-key --business "<name>"   creates the business if needed; prints the new key alone on the last line
//   revoke-key --key <key> | --prefix <prefix>
//   list-keys
//   set-webhook --business "<name>" --url <url> [--rotate]   prints the signature key alone on the last line
//   set-webhook --business "<name>" --clear
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.js';
import { issueKey, listKeys, revokeKey } from '../server/store/api-keys.js';
import { randomBytes } from 'node:crypto';
import { findBusinessByName, findOrCreateBusiness, findWebhook, setWebhook } from '../server/store/businesses.js';
import { checkWebhookUrl } from '../server/outbox/webhook-target.js';
import { openDatabase, type Database } from '../server/store/database.js';

class UsageError extends Error {}

const commands: Record<string, (db: Database, args: string[]) => Promise<void>> = {
  async 'create-key'(db, args) {
    const { values } = parseArgs({ args, options: { business: { type: 'string' } } });
    const name = values.business?.trim();
    if (!name) throw new UsageError('create-key needs --business "<name>"');
    if (name.length > 200) throw new UsageError('--business must be at most 200 characters');
    const business = await findOrCreateBusiness(db, name);
    const { key, prefix } = await issueKey(db, business.id);
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
  async 'set-webhook'(db, args) {
    const { values } = parseArgs({ args, options: { business: { type: 'string' }, url: { type: 'string' }, rotate: { type: 'boolean' }, clear: { type: 'boolean' } } });
    const name = values.business?.trim();
    if (!name || (!values.url && !values.clear)) throw new UsageError('set-webhook needs --business "<name>" and --url <url> (or --clear)');
    const business = await findBusinessByName(db, name);
    if (!business) throw new UsageError(`no business named "${name}" (create-key creates one)`);
    if (values.clear) {
      await setWebhook(db, business.id, null);
      console.log(`webhook cleared for "${business.name}"`);
      return;
    }
    const config = loadConfig();
    const serviceUrls = [config.publicUrl ?? `http://localhost:${config.port}`, `http://localhost:${config.port}`];
    // The same check as at each delivery, the host resolved now: a URL that leads to this machine, a
    // private network or a metadata service is refused before any event is queued for it.
    const check = await checkWebhookUrl(values.url!, { allowPrivate: config.outbox.webhookAllowPrivate, serviceUrls });
    if (!check.ok) throw new UsageError(check.problem);
    const existing = await findWebhook(db, business.id);
    // The key survives a change of URL, so receivers keep verifying; --rotate issues a new one.
    const secret = existing && !values.rotate ? existing.secret : `whsec_${randomBytes(32).toString('base64')}`;
    await setWebhook(db, business.id, { url: values.url!, secret });
    console.error(`Webhook for "${business.name}" set to ${values.url}. Events are signed with this key:`);
    console.log(secret);
  },
  async 'list-keys'(db) {
    for (const key of await listKeys(db)) {
      console.log(`${key.prefix}…  ${key.revoked_at ? 'revoked' : 'live   '}  ${key.business}`);
    }
  },
};

async function main([command = '', ...args]: string[]): Promise<number> {
  const run = commands[command];
  if (!run) {
    console.error(`usage: keys.ts <${Object.keys(commands).join('|')}> [options]`);
    return 2;
  }
  const db = openDatabase(loadConfig().databaseUrl);
  try {
    await db.migrate();
    await run(db, args);
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
