// `npm run bench -- --scale`: does the cost of a read grow with the table? Seeds an embedded database
// with 10,000 and then 1,000,000 payment links for one business (and 1,000 / 100,000 collections on one
// open link), by SQL bulk insert rather than HTTP, then measures get by id, the first list page, a
// filtered list page, pages filtered by status and by a wide date range (non-selective), the deepest
// page a list reaches, and total-collection over one day, and prints the ratio large/small of each
// one's cost (time per request) and the worst page's latency. Target: every ratio at most 2.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { openDatabase } from '../../server/store/database.js';

const OPEN_LINK_ID = 'ffffffffffffffffffffffff';
/** One day of collections: the density is the same at both sizes, the history ten times longer. */
const COLLECTIONS_PER_DAY = 1_000;
const BASE_EPOCH = Date.UTC(2020, 0, 1) / 1000;

interface Seeded {
  key: string;
  getId: string;
  reference: string;
  range: string;
}

async function seed(databaseUrl: string, links: number, collections: number, log: (line: string) => void): Promise<Seeded> {
  const db = openDatabase(databaseUrl);
  const started = performance.now();
  try {
    await db.migrate();
    const business = await findOrCreateBusiness(db, 'Scale');
    const { key } = await issueKey(db, business.id);
    const timestamp = (seconds: string) => `strftime('%Y-%m-%dT%H:%M:%S', ${BASE_EPOCH} + ${seconds}, 'unixepoch') || '.000000Z'`;
    // Rows come from a recursive sequence inside SQLite: no round trip per row.
    for (let from = 0; from < links; from += 100_000) {
      const to = Math.min(links, from + 100_000);
      await db.run(db.sql.raw(`
        with recursive seq(i) as (select ${from} union all select i + 1 from seq where i + 1 < ${to})
        insert into payment_links (_id, business_id, email, phone_no, currency, amount, title, description, redirect_url, reference, reference_2, status, paid, created_at, updated_at, deleted_at)
        select printf('%024x', i), ${business.id}, 'payer' || (i % 1000) || '@example.com', null, 'MYR', 1000 + (i % 1000), 'Invoice ' || i, null, null,
               'REF-' || (i / 10), null, 'Active', 0, ${timestamp('i * 60')}, ${timestamp('i * 60')}, null
        from seq`));
    }
    await db.run(db.sql('open_payment_links').insert({
      _id: OPEN_LINK_ID, business_id: business.id, currency: 'MYR', minimum_amount: 500, title: 'Donations', description: null, redirect_url: null,
      reference: null, reference_2: null, status_id: 1, created_at: '2020-01-01T00:00:00.000000Z', updated_at: '2020-01-01T00:00:00.000000Z', deleted_at: null,
    }));
    const spacing = 86_400 / COLLECTIONS_PER_DAY;
    await db.run(db.sql.raw(`
      with recursive seq(i) as (select 0 union all select i + 1 from seq where i + 1 < ${collections})
      insert into payments (_id, business_id, payment_link_id, open_payment_link_id, attempt_id, amount, currency, status_id, payer_name, payer_email, method, provider,
                            provider_reference, card_brand, card_last4, failure_code, failure_message, created_at, updated_at)
      select printf('c%023x', i), ${business.id}, null, '${OPEN_LINK_ID}', 'scale-' || i, 500 + (i % 5000), 'MYR', 1, 'Payer ' || i, 'p' || i || '@example.com', 'card', 'sandbox',
             null, 'visa', '4242', null, null, ${timestamp(`i * ${spacing}`)}, ${timestamp(`i * ${spacing}`)}
      from seq`));
    // No ANALYZE: a production database file has no statistics either, and the plans must hold without.
    log(`  seeded ${links.toLocaleString('en')} payment links and ${collections.toLocaleString('en')} collections in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const lastDay = new Date((BASE_EPOCH + (collections - 1) * spacing) * 1000).toISOString().slice(0, 10);
    return { key, getId: (Math.floor(links / 2)).toString(16).padStart(24, '0'), reference: `REF-${Math.floor(links / 20)}`, range: `${lastDay},${lastDay}` };
  } finally {
    await db.close();
  }
}

async function measure(url: string, path: string, key: string, duration: number, connections: number) {
  const result = await autocannon({ url: url + path, connections, duration, headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  if (result.non2xx || result.errors) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

export async function runScale({ log, root, duration = 5, connections = 10 }: { log: (line: string) => void; root: string; duration?: number; connections?: number }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-scale-'));
  const sizes = [
    { links: 10_000, collections: 1_000 },
    { links: 1_000_000, collections: 100_000 },
  ];
  const results: Record<string, Record<string, { rps: number; p50: number; p99: number }>> = {};
  if (spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
  try {
    for (const size of sizes) {
      const label = size.links.toLocaleString('en');
      log(`scale ${label} payment links:`);
      const databaseUrl = `sqlite:${join(dir, `scale-${size.links}.sqlite`)}`;
      const seeded = await seed(databaseUrl, size.links, size.collections, log);
      const port = 50_000 + Math.floor(Math.random() * 10_000);
      const child = spawn(process.execPath, ['dist/server/main.js'], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_PER_SECOND: '1000000', MAIL_DIR: join(dir, 'mail') },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening on') && resolve()));
      const url = `http://127.0.0.1:${port}`;
      const paths = {
        get: `/api/payment-links/${seeded.getId}`,
        list: '/api/payment-links',
        filtered: `/api/payment-links?filter%5Breference%5D=${seeded.reference}`,
        // Filters that match most of the table: their totals stay exact without counting the matches.
        status: '/api/payment-links?filter%5Bstatus%5D=Active',
        dated: '/api/payment-links?filter%5Bcreated_at_between%5D=2000-01-01,2099-12-31',
        // The deepest page a list reaches (its first 10000 records), with and without a filter.
        deepest: '/api/payment-links?per_page=100&page=100',
        deepestStatus: '/api/payment-links?filter%5Bstatus%5D=Active&per_page=100&page=100',
        total: `/api/open-payment-links/${OPEN_LINK_ID}/total-collection?filter%5Bcreated_at_between%5D=${seeded.range}`,
      };
      results[label] = {};
      for (const [name, path] of Object.entries(paths)) {
        const measured = await measure(url, path, seeded.key, duration, connections);
        results[label]![name] = measured;
        log(`  ${name.padEnd(9)} ${measured.rps.toFixed(0).padStart(7)} req/s   p50 ${String(measured.p50).padStart(4)} ms   p99 ${String(measured.p99).padStart(4)} ms`);
      }
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    const [small, large] = sizes.map((s) => results[s.links.toLocaleString('en')]!);
    const ratios = Object.fromEntries(Object.keys(small!).map((name) => [name, small![name]!.rps / large![name]!.rps]));
    mkdirSync(join(root, 'bench'), { recursive: true });
    const file = join(root, 'bench', 'results.json');
    let previous: Record<string, unknown> = {};
    try {
      previous = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // first results
    }
    writeFileSync(file, `${JSON.stringify({ ...previous, scale: { at: new Date().toISOString(), sizes, results, costRatios: ratios } }, null, 2)}\n`);
    const worst = large!.deepestStatus!;
    log(`worst page at ${sizes[1]!.links.toLocaleString('en')} links (filter[status], page 100 of 100): p50 ${worst.p50} ms, p99 ${worst.p99} ms`);
    log('cost ratio 1,000,000 / 10,000 (time per request; target at most 2):');
    log(`bench-scale ${Object.entries(ratios).map(([name, ratio]) => `${name}=${ratio.toFixed(2)}`).join(' ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
