// A migrated database of the test file's own, for tests that drive the store without the HTTP server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { connect, type Db } from '../../server/store/db.js';
import { migrateLatest } from '../../server/store/migrate.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface MigratedDatabase {
  /** Open from the file's beforeAll until its afterAll. */
  readonly db: Db;
  readonly dir: string;
}

/** Registers the hooks that create, migrate and finally drop the database; call at the top of a test file. */
export function useMigratedDatabase(name: string): MigratedDatabase {
  const dir = mkdtempSync(join(tmpdir(), `payments-${name}-`));
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(dir);
    db = connect(database.url);
    await migrateLatest(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    get db() {
      if (!db) throw new Error('the database is opened in beforeAll');
      return db;
    },
  };
}
