// `npx tsx scripts/bench/backup-times.ts [--payments 100000,1000000] [--on sqlite|postgres|both]`: how long a
// backup, its verify and a restore onto a fresh database take, for a business with that many payments
// (and a fifth as many refunds, webhook events and audit events), on the embedded database and on
// PostgreSQL (SCALE_POSTGRES_URL or TEST_POSTGRES_URL, an admin URL: the databases are made and dropped).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBackup, restoreBackup, verifyBackup } from '../../server/backup/backup.js';
import { hasPgDump } from '../../server/backup/postgres-dump.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { knexFor, openDatabase } from '../../server/store/database.js';
import { createThrowawayDatabase } from '../throwaway-database.js';
import { plantDataset } from './backup-dataset.js';

const { values } = parseArgs({ options: { payments: { type: 'string', default: '100000,1000000' }, on: { type: 'string', default: 'both' } } });
const adminUrl = process.env.SCALE_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SERVICE = { name: 'payment-collection-service', version: 'bench' };
const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(1);

async function fresh(kind: 'sqlite' | 'postgres', dir: string, name: string) {
  if (kind === 'sqlite') return { url: `sqlite:${join(dir, `${name}.sqlite`)}`, drop: async () => {} };
  return createThrowawayDatabase(adminUrl, `backup_bench_${name}_${process.pid}_${randomBytes(3).toString('hex')}`);
}

async function measure(kind: 'sqlite' | 'postgres', payments: number, methods: readonly ('pg_dump' | 'pg-rows' | undefined)[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'backup-bench-'));
  const source = await fresh(kind, dir, 'source');
  try {
    let from = performance.now();
    const db = openDatabase(source.url);
    await db.migrate();
    const business = await findOrCreateBusiness(db, 'Bench');
    await db.close();
    const sql = knexFor(source.url);
    await plantDataset(sql, business.id, { payments, refundEvery: 5, events: payments / 5, audit: payments / 5 });
    await sql.destroy();
    const seeded = seconds(from);
    for (const method of methods) {
      const target = await fresh(kind, dir, 'target');
      try {
        const file = join(dir, 'bench.pcsbak');
        from = performance.now();
        await createBackup({ databaseUrl: source.url, to: file, service: SERVICE, postgres: method });
        const backedUp = seconds(from);
        from = performance.now();
        await verifyBackup({ file, databaseUrl: source.url });
        const verified = seconds(from);
        from = performance.now();
        await restoreBackup({ file, databaseUrl: target.url, secretsKeyIds: [], secretsKeySource: 'none' });
        const restored = seconds(from);
        const label = kind === 'sqlite' ? 'SQLite' : `PostgreSQL (${method})`;
        console.log(
          `| ${label} | ${payments.toLocaleString('en')} | ${seeded} s | ${backedUp} s | ${verified} s | ${restored} s | ${(statSync(file).size / 1e6).toFixed(0)} MB |`,
        );
      } finally {
        await target.drop();
      }
    }
  } finally {
    await source.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log('| database | payments | seeding | backup | verify | restore | archive |');
console.log('|---|---|---|---|---|---|---|');
for (const payments of values.payments.split(',').map(Number)) {
  if (values.on !== 'postgres') await measure('sqlite', payments, [undefined]);
  if (values.on !== 'sqlite') await measure('postgres', payments, hasPgDump() ? ['pg_dump', 'pg-rows'] : ['pg-rows']);
}
