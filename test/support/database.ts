// The database a test runs on. By default an SQLite file in the test's own folder; when the suite
// runs against PostgreSQL (TEST_POSTGRES_URL, an admin URL such as
// postgres://postgres@127.0.0.1:5432/postgres), a database of its own with a unique name, dropped
// when the test is done, so runs never see each other's data.
//
// Most tests want the database at the latest migration. Migrating costs each one about as long as a
// short test file (PostgreSQL creates every table, index and trigger one statement at a time), so
// those get a copy of a template migrated once: an SQLite file copied, or a PostgreSQL database
// created with `TEMPLATE`. The template's name carries a hash of the server's sources, so a change to
// a migration (or to anything a migration reads) makes a new one rather than reusing a stale one.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEMPLATE_MARK, asPostgresAdmin, createThrowawayDatabase } from '../../scripts/throwaway-database.js';
import { openDatabase } from '../../server/store/database.js';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL;
/** Every database of one run shares this prefix, so the runner can drop leftovers of a crashed run. */
export const TEST_DATABASE_PREFIX = `payments_test_${process.env.TEST_RUN_ID ?? 'local'}_`;

export interface TestDatabase {
  url: string;
  kind: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

/** An empty database: for tests of migrations and of a first start. */
export async function createTestDatabase(dir: string): Promise<TestDatabase> {
  if (!TEST_POSTGRES_URL) return { url: `sqlite:${join(dir, 'test.sqlite')}`, kind: 'sqlite', drop: async () => {} };
  const database = await createThrowawayDatabase(TEST_POSTGRES_URL, uniqueName());
  return { ...database, kind: 'postgres' };
}

/** A database at the latest migration, copied from this run's template. */
export async function createMigratedTestDatabase(dir: string): Promise<TestDatabase> {
  if (!TEST_POSTGRES_URL) {
    const file = join(dir, 'test.sqlite');
    copyFileSync(await sqliteTemplate(), file);
    return { url: `sqlite:${file}`, kind: 'sqlite', drop: async () => {} };
  }
  const database = await createThrowawayDatabase(TEST_POSTGRES_URL, uniqueName(), await postgresTemplate(TEST_POSTGRES_URL));
  return { ...database, kind: 'postgres' };
}

const uniqueName = () => `${TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;

const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'server');

/** A hash of every source file of the server: what the migrations are, and whatever they import. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) hash.update(path.slice(serverDir.length)).update(readFileSync(path));
    }
  };
  walk(serverDir);
  return hash.digest('hex').slice(0, 16);
}

let sqliteTemplatePath: Promise<string> | undefined;

/**
 * One file per version of the sources, in the system's temporary folder. Workers that find none each
 * migrate a file of their own and move it into place: the rename is atomic, and either copy is whole.
 */
function sqliteTemplate(): Promise<string> {
  sqliteTemplatePath ??= (async () => {
    const path = join(tmpdir(), `payments-test-template-${sourcesHash()}.sqlite`);
    if (existsSync(path)) return path;
    const building = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const db = openDatabase(`sqlite:${building}`);
    try {
      await db.migrate();
    } finally {
      await db.close();
    }
    // Closing the last connection checkpoints the write-ahead log into the file; a copy of the file
    // alone must hold every migration.
    if (existsSync(`${building}-wal`)) throw new Error(`the template ${building} still has a write-ahead log after closing`);
    renameSync(building, path);
    rmSync(`${building}-shm`, { force: true });
    return path;
  })();
  return sqliteTemplatePath;
}

let postgresTemplateName: Promise<string> | undefined;
/** Serialises the workers of a run that find no template: one builds it, the others wait for it. */
const TEMPLATE_LOCK = 0x7061796d; // any constant: the suites take no other advisory lock on the admin database

function postgresTemplate(adminUrl: string): Promise<string> {
  postgresTemplateName ??= asPostgresAdmin(adminUrl, async (client) => {
    const name = `${TEST_DATABASE_PREFIX}${TEMPLATE_MARK}${sourcesHash()}`;
    await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const found = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount) return name;
      // Built under another name and renamed when whole, so a run that stops half-way leaves no
      // half-migrated template for the next to copy.
      const buildingName = `${TEST_DATABASE_PREFIX}building_${process.pid}_${randomBytes(4).toString('hex')}`;
      const building = await createThrowawayDatabase(adminUrl, buildingName);
      try {
        const db = openDatabase(building.url);
        try {
          await db.migrate();
        } finally {
          await db.close();
        }
        await client.query(`alter database "${buildingName}" rename to "${name}"`);
      } catch (error) {
        await building.drop();
        throw error;
      }
      return name;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return postgresTemplateName;
}
