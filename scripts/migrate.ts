// Runs the migrations against DATABASE_URL and exits: the step a deployment runs once before starting
// instances with MIGRATE_ON_START=off. (Knex's migration lock also makes concurrent starts safe.)
// Then it seals webhook keys that earlier versions stored in clear, as every start does.
import { loadConfig } from '../server/config.js';
import { loadMasterKey } from '../server/secrets/key-source.js';
import { sealLegacyWebhookSecrets } from '../server/store/businesses.js';
import { connect } from '../server/store/db.js';
import { migrateLatest } from '../server/store/migrate.js';

const config = loadConfig();
const secretsKey = loadMasterKey(config.databaseUrl, config.secrets).key;
const db = connect(config.databaseUrl);
try {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database is up to date');
  const sealed = await sealLegacyWebhookSecrets(db, secretsKey);
  if (sealed > 0) console.log(`sealed ${sealed} webhook key(s) stored in clear by an earlier version`);
} finally {
  await db.destroy();
}
