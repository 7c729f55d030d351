// Runs the migrations against DATABASE_URL and exits: the step a deployment runs once before starting
// instances with MIGRATE_ON_START=off. (Knex's migration lock also makes concurrent starts safe.)
import { loadConfig } from '../server/config.js';
import { openDatabase } from '../server/store/database.js';

const db = openDatabase(loadConfig().databaseUrl);
try {
  const applied = await db.migrate();
  console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
