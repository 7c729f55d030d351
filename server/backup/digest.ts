// Per-table row counts and checksums. A table's checksum is the sum (mod 2^128) of the first 16 bytes
// of each row's sha256: it does not depend on the order rows are read in, so neither database has to
// sort a million rows to compute it, and the dump and the restored tables agree row for row.
import { createHash } from 'node:crypto';
import type { TableStats } from './archive.js';

const MOD = 1n << 128n;

export class TableDigest {
  #rows = 0;
  #sum = 0n;

  add(row: string): void {
    this.#rows += 1;
    const hash = createHash('sha256').update(row).digest();
    this.#sum = (this.#sum + ((hash.readBigUInt64BE(0) << 64n) | hash.readBigUInt64BE(8))) % MOD;
  }

  get stats(): TableStats {
    return { rows: this.#rows, checksum: this.#sum.toString(16).padStart(32, '0') };
  }
}

/** Tables whose rows are the migrator's own: a restore takes the schema from the migrations, not from them. */
export const isMigratorTable = (table: string) => table.startsWith('knex_migrations');

/** The columns that hold values sealed with the secrets key (`secrets/seal.ts`): the restore checks it holds their key. */
export const SEALED_COLUMNS: readonly [table: string, column: string][] = [
  ['businesses', 'stripe_secret_key'],
  ['businesses', 'stripe_webhook_secret'],
  ['webhook_endpoints', 'secret'],
  ['webhook_endpoints', 'previous_secret'],
  ['redirect_signing_keys', 'key'],
  ['redirect_signing_keys', 'previous_key'],
  ['users', 'totp_secret'],
  ['idempotency_keys', 'response_body'],
];

/** The SQL that lists the key ids (`v1:<id>:...`, eight characters) found in one sealed column; the same on both databases. */
export const sealedKeyIdsSql = (table: string, column: string) =>
  `select distinct substr("${column}", 4, 8) as id from "${table}" where "${column}" like 'v1:%'`;

/** Tells where every table differs from the manifest's counts and checksums; empty when all agree. */
export function differences(expected: Record<string, TableStats>, found: Record<string, TableStats>): string[] {
  const problems: string[] = [];
  for (const [table, stats] of Object.entries(expected)) {
    const got = found[table];
    if (!got) problems.push(`table ${table} is missing`);
    else if (got.rows !== stats.rows) problems.push(`table ${table} has ${got.rows} rows, the manifest says ${stats.rows}`);
    else if (got.checksum !== stats.checksum) problems.push(`table ${table}'s checksum is ${got.checksum}, the manifest says ${stats.checksum}`);
  }
  for (const table of Object.keys(found)) if (!expected[table]) problems.push(`table ${table} is not in the manifest`);
  return problems;
}
