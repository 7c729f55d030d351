// Migrations are listed here rather than discovered on disk, so they run the same under tsx, vitest
// and a compiled build, and their order is explicit.
import type { Knex } from 'knex';
import type { Db } from './db.js';
import * as initial from './migrations/0001_initial.js';
import * as tokenCards from './migrations/0002_token_cards.js';
import * as outbox from './migrations/0003_outbox.js';

const migrations: Record<string, Knex.Migration> = {
  '0001_initial': initial,
  '0002_token_cards': tokenCards,
  '0003_outbox': outbox,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name] as Knex.Migration,
};

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}
