// A migrated database of the test file's own, for tests that drive the store without the HTTP server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Knex } from 'knex';
import { newId } from '../../server/domain/ids.js';
import { knexFor, openDatabase, type Database } from '../../server/store/database.js';
import { createMigratedTestDatabase, type TestDatabase } from './database.js';

export interface MigratedDatabase {
  /** Open from the file's beforeAll until its afterAll. */
  readonly db: Database;
  /** Knex on a connection of its own, for looking at or planting rows. */
  readonly sql: Knex;
  readonly dir: string;
}

/** Registers the hooks that create (migrated) and finally drop the database; call at the top of a test file. */
export function useMigratedDatabase(name: string): MigratedDatabase {
  const dir = mkdtempSync(join(tmpdir(), `payments-${name}-`));
  let database: TestDatabase | undefined;
  let db: Database | undefined;
  let sql: Knex | undefined;
  beforeAll(async () => {
    database = await createMigratedTestDatabase(dir);
    db = openDatabase(database.url);
    sql = knexFor(database.url);
  });
  afterAll(async () => {
    await sql?.destroy();
    await db?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    get db() {
      if (!db) throw new Error('the database is opened in beforeAll');
      return db;
    },
    get sql() {
      if (!sql) throw new Error('the database is opened in beforeAll');
      return sql;
    },
  };
}

/** A pending token of a business, as the tokens table holds it (no card yet). */
export const tokenRow = (businessId: number, id = newId()) => ({
  _id: id,
  business_id: businessId,
  email: 'a@example.com',
  phone_no: null,
  redirect_url: null,
  title: 't',
  description: 'd',
  token: newId() + newId() + newId().slice(0, 16),
  status: 'pending',
  created_at: '2026-01-01T00:00:00.000000Z',
  updated_at: '2026-01-01T00:00:00.000000Z',
});
