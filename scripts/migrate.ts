// Runs the migrations against DATABASE_URL and exits: the step a deployment runs once before starting
// instances with MIGRATE_ON_START=off. (Knex's migration lock also makes concurrent starts safe.)
import { loadConfig } from '../server/config.js';
import { connect } from '../server/store/db.js';
import { migrateLatest } from '../server/store/migrate.js';

const db = connect(loadConfig().databaseUrl);
try {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.destroy();
}
