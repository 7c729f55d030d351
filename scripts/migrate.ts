// Runs the migrations against DATABASE_URL and exits: the step a deployment runs once before starting
// instances with MIGRATE_ON_START=off. (Knex's migration lock also makes concurrent starts safe.)
// Then it seals webhook keys that earlier versions stored in clear, as every start does.
import { loadConfig } from '../server/config.js';
import { loadMasterKey } from '../server/secrets/key-source.js';
import { openDatabase } from '../server/store/database.js';
import { sealLegacyWebhookSecrets } from '../server/store/seal-legacy-secrets.js';

const config = loadConfig();
const secretsKey = loadMasterKey(config.databaseUrl, config.secrets).key;
const db = openDatabase(config.databaseUrl, config.database);
try {
  const applied = await db.migrate();
  console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database is up to date');
  const sealed = await sealLegacyWebhookSecrets(config.databaseUrl, secretsKey);
  if (sealed > 0) console.log(`sealed ${sealed} webhook key(s) stored in clear by an earlier version`);
} finally {
  await db.close();
}
