// `npm run bench -- --scale`: does the cost of a read grow with the table? Seeds an embedded database
// with 10,000 and then 1,000,000 payment links for one business (and 1,000 / 100,000 collections on one
// open link, and 10,000 / 1,000,000 payments: on the links, on small open links and charges on saved
// cards, paid, failed, pending, refunded in part and in full, with their refund rows), by SQL bulk
// insert rather than HTTP, then measures get by id, the first list page, a filtered list page, pages
// filtered by status and by a wide date range (non-selective), the deepest page a list reaches, and
// total-collection over one day for the links; and for payments get by id, the first page, every
// filter of GET /api/payments on its own (a value matching as many payments at both sizes, and the
// busy open link's collections, which grow with the table) and the deepest page. It prints the ratio
// large/small of each one's cost (time per request; each the best of three measurements, as the
// machine may be shared) and the worst page's latency. Target: every ratio at most 2 where the
// matches do not grow. It also exports every payment with its refund lines as CSV (GET
// /api/payments, Accept: text/csv), and again from a server whose heap is capped, and reports the
// time and the server's peak RSS. `--scale-on postgres` runs the same on PostgreSQL (SCALE_POSTGRES_URL,
// by default the local server), in two databases of its own that it drops afterwards.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { openDatabase } from '../../server/store/database.js';
import { freePort } from '../soak/server.js';

const OPEN_LINK_ID = 'ffffffffffffffffffffffff';
/** One day of collections: the density is the same at both sizes, the history ten times longer. */
const COLLECTIONS_PER_DAY = 1_000;
const BASE_EPOCH = Date.UTC(2020, 0, 1) / 1000;
/** The heap the capped export runs in (MiB): the export holds a batch of 500 payments, not the list. */
const CAPPED_HEAP_MIB = 48;

/** The SQL that differs between the two databases: a sequence of rows, hex ids, timestamps, false. */
interface Dialect {
  name: 'sqlite' | 'postgres';
  /** A CTE `seq(i)` of the integers from `from` to `to - 1`, made inside the database: no round trip per row. */
  seq(from: number, to: number): string;
  /** `prefix` then `expr` in lower-case hex, zero-padded to `width` digits. */
  hex(prefix: string, width: number, expr: string): string;
  /** The timestamp `seconds` (an SQL expression) after BASE_EPOCH. */
  time(seconds: string): string;
  false: string;
  /**
   * Rows per insert statement. Each row passes through the counters' triggers, which update the same
   * few counter rows (a year's, a month's): PostgreSQL walks every version of such a row made earlier
   * in the same statement, so a large one costs the square of its size there.
   */
  batch: number;
}

const SQLITE: Dialect = {
  name: 'sqlite',
  seq: (from, to) => `with recursive seq(i) as (select ${from} union all select i + 1 from seq where i + 1 < ${to})`,
  hex: (prefix, width, expr) => `printf('${prefix}%0${width}x', ${expr})`,
  // Stored as ISO text in the one format the store writes.
  time: (seconds) => `strftime('%Y-%m-%dT%H:%M:%S', ${BASE_EPOCH} + ${seconds}, 'unixepoch') || '.000000Z'`,
  false: '0',
  batch: 100_000,
};

const POSTGRES: Dialect = {
  name: 'postgres',
  seq: (from, to) => `with seq(i) as (select generate_series(${from}, ${to - 1}))`,
  hex: (prefix, width, expr) => `'${prefix}' || lpad(to_hex(${expr}), ${width}, '0')`,
  time: (seconds) => `to_timestamp(${BASE_EPOCH} + ${seconds})`,
  false: 'false',
  batch: 2_000,
};

interface Seeded {
  key: string;
  getId: string;
  reference: string;
  range: string;
  payment: {
    id: string;
    linkId: string;
    openLinkId: string;
    tokenId: string;
    email: string;
    reference: string;
    day: string;
  };
}

async function seed(
  databaseUrl: string,
  dialect: Dialect,
  links: number,
  collections: number,
  payments: number,
  log: (line: string) => void,
): Promise<Seeded> {
  // A bulk load through the counters' triggers is no request: no statement timeout.
  const db = openDatabase(databaseUrl, { statementTimeoutMs: 3_600_000 });
  const started = performance.now();
  const { hex, time: timestamp } = dialect;
  try {
    await db.migrate();
    const business = await findOrCreateBusiness(db, 'Scale');
    const { key } = await issueKey(db, business.id);
    /** Runs `insert` over the rows 0 to `total - 1`, a batch a statement, and says how long the table took. */
    const inBatches = async (table: string, total: number, insert: (seq: string) => Promise<unknown>) => {
      const began = performance.now();
      for (let from = 0; from < total; from += dialect.batch) await insert(dialect.seq(from, Math.min(total, from + dialect.batch)));
      log(`  ${table}: ${total.toLocaleString('en')} rows in ${((performance.now() - began) / 1000).toFixed(1)} s`);
    };
    await inBatches('payment links', links, (seq) =>
      db.run(
        db.sql.raw(`
        ${seq}
        insert into payment_links (_id, business_id, email, phone_no, currency, amount, title, description, redirect_url, reference, reference_2, status, paid, created_at, updated_at, deleted_at)
        select ${hex('', 24, 'i')}, ${business.id}, 'payer' || (i % 1000) || '@example.com', null, 'MYR', 1000 + (i % 1000), 'Invoice ' || i, null, null,
               'REF-' || (i / 10), null, 'Active', ${dialect.false}, ${timestamp('i * 60')}, ${timestamp('i * 60')}, null
        from seq`),
      ),
    );
    await db.run(db.sql('open_payment_links').insert({
      _id: OPEN_LINK_ID, business_id: business.id, currency: 'MYR', minimum_amount: 500, title: 'Donations', description: null, redirect_url: null,
      reference: null, reference_2: null, status_id: 1, created_at: '2020-01-01T00:00:00.000000Z', updated_at: '2020-01-01T00:00:00.000000Z', deleted_at: null,
    }));
    const spacing = 86_400 / COLLECTIONS_PER_DAY;
    await inBatches('collections on one open link', collections, (seq) =>
      db.run(
        db.sql.raw(`
      ${seq}
      insert into payments (_id, business_id, payment_link_id, open_payment_link_id, attempt_id, amount, currency, status_id, payer_name, payer_email, method, provider,
                            provider_reference, card_brand, card_last4, failure_code, failure_message, created_at, updated_at)
      select ${hex('c', 23, 'i')}, ${business.id}, null, '${OPEN_LINK_ID}', 'scale-' || i, 500 + (i % 5000), 'MYR', 1, 'Payer ' || i, 'p' || i || '@example.com', 'card', 'sandbox',
             null, 'visa', '4242', null, null, ${timestamp(`i * ${spacing}`)}, ${timestamp(`i * ${spacing}`)}
      from seq`),
      ),
    );
    // Payments, one a minute: seven in ten on a payment link of their own, two in ten on small open
    // links (ten each), one in ten a charge on a saved card (ten per token); by status one in twenty
    // failed, one in twenty pending at the acquirer (its reference kept, so the pending sweep leaves
    // it), the rest paid, of which one in seven is refunded in part and one in thirteen in full, each
    // with its refund row. References and e-mails match ten payments each, at every size.
    const small = (i: string) => hex('a', 23, `${i} / 50`);
    const token = (i: string) => hex('b', 23, `${i} / 100`);
    await inBatches('small open links', payments / 50, (seq) =>
      db.run(
        db.sql.raw(`
      ${seq}
      insert into open_payment_links (_id, business_id, currency, minimum_amount, title, description, redirect_url, reference, reference_2, status_id, created_at, updated_at, deleted_at)
      select ${hex('a', 23, 'i')}, ${business.id}, 'MYR', 500, 'Drive ' || i, null, null, null, null, 1, ${timestamp('i * 3000')}, ${timestamp('i * 3000')}, null
      from seq`),
      ),
    );
    await inBatches('saved cards', payments / 100, (seq) =>
      db.run(
        db.sql.raw(`
      ${seq}
      insert into tokens (_id, business_id, email, phone_no, redirect_url, title, description, token, status, card_brand, card_last4, card_exp_month, card_exp_year,
                          card_reference, created_at, updated_at)
      select ${hex('b', 23, 'i')}, ${business.id}, 'saver' || i || '@example.com', null, null, 'Plan ' || i, 'Monthly plan', ${hex('', 64, 'i')}, 'active', 'visa', '4242',
             12, 2039, ${hex('sbx_card_', 24, 'i')}, ${timestamp('i * 6000')}, ${timestamp('i * 6000')}
      from seq`),
      ),
    );
    const failed = 'i % 20 = 0';
    const pending = 'i % 20 = 10';
    const paid = `not (${failed} or ${pending})`;
    const partly = `(${paid}) and i % 7 = 0`;
    const fully = `(${paid}) and i % 7 <> 0 and i % 13 = 0`;
    const amount = '1000 + (i % 1000)';
    await inBatches('payments and their refunds', payments, async (seq) => {
      await db.run(db.sql.raw(`
        ${seq}
        insert into payments (_id, business_id, payment_link_id, open_payment_link_id, tokenization_id, attempt_id, amount, amount_refunded, refund_state, currency,
                              status_id, payer_name, payer_email, method, provider, provider_reference, reference, description, card_brand, card_last4,
                              failure_code, failure_message, created_at, updated_at)
        select ${hex('e', 23, 'i')}, ${business.id},
               case when i % 10 < 7 then ${hex('', 24, 'i')} end, case when i % 10 in (7, 8) then ${small('i')} end, case when i % 10 = 9 then ${token('i')} end,
               'pay-' || i, ${amount},
               case when ${partly} then 100 when ${fully} then ${amount} else 0 end, case when ${partly} then 1 when ${fully} then 2 else 0 end, 'MYR',
               case when ${failed} then 3 when ${pending} then 2 else 1 end, 'Payer ' || i, 'payer' || (i / 10) || '@example.com', 'card', 'sandbox',
               case when ${failed} then null else ${hex('sbx_auth_', 24, 'i')} end,
               'REF-' || (i / 10), 'Invoice ' || i, 'visa', '4242', case when ${failed} then 'card_declined' end, case when ${failed} then 'Your card was declined.' end,
               ${timestamp('i * 60 + 30')}, ${timestamp('i * 60 + 30')}
        from seq`));
      await db.run(db.sql.raw(`
        ${seq}
        insert into refunds (_id, business_id, payment_id, amount, currency, status, reason, provider_reference, failure_code, failure_message, created_at, updated_at)
        select ${hex('f', 23, 'i')}, ${business.id}, ${hex('e', 23, 'i')}, case when ${partly} then 100 else ${amount} end, 'MYR', 'succeeded', 'Returned ' || i,
               ${hex('sbx_re_', 24, 'i')}, null, null, ${timestamp('i * 60 + 90')}, ${timestamp('i * 60 + 90')}
        from seq where ${partly} or ${fully}`));
    });
    // No ANALYZE on SQLite: a production database file has no statistics either, and the plans must hold
    // without. PostgreSQL's autovacuum analyzes a table soon after a load like this one: done here at once.
    if (dialect.name === 'postgres') await db.run(db.sql.raw('analyze'));
    log(
      `  seeded ${links.toLocaleString('en')} payment links, ${collections.toLocaleString('en')} collections and ${payments.toLocaleString('en')} payments in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const lastDay = new Date((BASE_EPOCH + (collections - 1) * spacing) * 1000).toISOString().slice(0, 10);
    // Payments from the middle of the table: i % 10 = 0 is on a payment link, i + 7 on an open link, i + 9 a charge.
    const middle = Math.floor(payments / 20) * 10 + 1;
    const idOf = (prefix: string, n: number) => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;
    const middleDay = new Date((BASE_EPOCH + middle * 60) * 1000).toISOString().slice(0, 10);
    return {
      key,
      getId: Math.floor(links / 2).toString(16).padStart(24, '0'),
      reference: `REF-${Math.floor(links / 20)}`,
      range: `${lastDay},${lastDay}`,
      payment: {
        id: idOf('e', middle),
        linkId: idOf('', middle),
        openLinkId: idOf('a', Math.floor((middle + 6) / 50)),
        tokenId: idOf('b', Math.floor((middle + 8) / 100)),
        email: `payer${Math.floor(middle / 10)}@example.com`,
        reference: `REF-${Math.floor(middle / 10)}`,
        day: `${middleDay},${middleDay}`,
      },
    };
  } finally {
    await db.close();
  }
}

async function measureOnce(url: string, path: string, key: string, duration: number, connections: number) {
  const result = await autocannon({ url: url + path, connections, duration, headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  if (result.non2xx || result.errors) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/**
 * The best of `tries` measurements: on a machine shared with other work a measurement can only be
 * slowed down by it, never sped up, so the fastest is the closest to the cost of the request itself.
 */
async function measure(url: string, path: string, key: string, duration: number, connections: number, tries: number) {
  let best = await measureOnce(url, path, key, duration, connections);
  for (let i = 1; i < tries; i += 1) {
    const next = await measureOnce(url, path, key, duration, connections);
    if (next.rps > best.rps) best = next;
  }
  return best;
}

interface CsvExport {
  lines: number;
  seconds: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
}

function rssMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kib / 1024);
}

/** Downloads every payment as CSV, sampling the server's RSS every 50 ms while it streams. */
async function exportAll(url: string, key: string, pid: number): Promise<CsvExport & { refundLines: number }> {
  const rssBeforeMiB = rssMiB(pid);
  let rssPeakMiB = rssBeforeMiB;
  const sampler = setInterval(() => (rssPeakMiB = Math.max(rssPeakMiB, rssMiB(pid))), 50);
  const started = performance.now();
  let lines = 0;
  let refundLines = 0;
  // A refund line starts with `refund,`: counted across chunk boundaries by what the last line began with.
  let lineStart = '';
  try {
    const response = await fetch(`${url}/api/payments`, { headers: { authorization: `Bearer ${key}`, accept: 'text/csv' } });
    if (response.status !== 200 || !response.body) throw new Error(`csv export: ${response.status}`);
    for await (const chunk of response.body)
      for (const byte of chunk as Uint8Array) {
        if (byte === 10) {
          lines += 1;
          lineStart = '';
        } else if (lineStart.length < 7) {
          lineStart += String.fromCharCode(byte);
          if (lineStart === 'refund,') refundLines += 1;
        }
      }
  } finally {
    clearInterval(sampler);
  }
  return { lines, refundLines, seconds: (performance.now() - started) / 1000, rssBeforeMiB, rssPeakMiB };
}

/** A database for one size: a file of its own, or a PostgreSQL database of its own, dropped with `drop()`. */
async function scaleDatabase(on: 'sqlite' | 'postgres', dir: string, links: number): Promise<{ url: string; drop(): Promise<void> }> {
  if (on === 'sqlite') return { url: `sqlite:${join(dir, `scale-${links}.sqlite`)}`, drop: async () => {} };
  const admin = process.env.SCALE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `payments_scale_${links}_${process.pid}`;
  const asAdmin = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await asAdmin(`create database "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(`drop database if exists "${name}" with (force)`) };
}

export async function runScale({
  log,
  root,
  on = 'sqlite',
  duration = 3,
  connections = 10,
  tries = 3,
}: {
  log: (line: string) => void;
  root: string;
  on?: 'sqlite' | 'postgres';
  duration?: number;
  connections?: number;
  tries?: number;
}): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-scale-'));
  const dialect = on === 'postgres' ? POSTGRES : SQLITE;
  const databases: { drop(): Promise<void> }[] = [];
  const secretsKey = randomBytes(32).toString('hex');
  const sizes = [
    { links: 10_000, collections: 1_000, payments: 10_000 },
    { links: 1_000_000, collections: 100_000, payments: 1_000_000 },
  ];
  const results: Record<string, Record<string, { rps: number; p50: number; p99: number }>> = {};
  const exports: Record<string, CsvExport & { refundLines: number }> = {};
  const cappedExports: Record<string, CsvExport & { refundLines: number; heapMiB: number }> = {};
  if (spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
  try {
    for (const size of sizes) {
      const label = size.links.toLocaleString('en');
      log(`scale ${label} payment links (${on}):`);
      const database = await scaleDatabase(on, dir, size.links);
      databases.push(database);
      const databaseUrl = database.url;
      const seeded = await seed(databaseUrl, dialect, size.links, size.collections, size.payments, log);
      const start = async (nodeOptions: string[] = []) => {
        // A port the system hands out (a fixed range met ports in use).
        const port = await freePort();
        const child = spawn(process.execPath, [...nodeOptions, 'dist/server/main.js'], {
          cwd: root,
          env: {
            ...process.env,
            DATABASE_URL: databaseUrl,
            // PostgreSQL asks for the key every instance shares; the embedded default makes its own.
            ...(on === 'postgres' && { SECRETS_KEY: secretsKey }),
            PORT: String(port),
            HOST: '127.0.0.1',
            RATE_LIMIT_PER_SECOND: '1000000',
            MAIL_DIR: join(dir, 'mail'),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        await new Promise<void>((resolve, reject) => {
          child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening on') && resolve());
          child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening`)));
        });
        const stop = () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          });
        return { child, url: `http://127.0.0.1:${port}`, stop };
      };
      const { child, url, stop } = await start();
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
        paymentGet: `/api/payments/${seeded.payment.id}`,
        paymentList: '/api/payments',
        // Each filter of GET /api/payments on its own. Selective values match as many payments at both sizes.
        paymentLinkId: `/api/payments?filter%5Bpayment_link_id%5D=${seeded.payment.linkId}`,
        paymentOpenLinkId: `/api/payments?filter%5Bopen_payment_link_id%5D=${seeded.payment.openLinkId}`,
        // The busy open link: its 1,000 / 100,000 collections all match; its total is summed from counters (0023), not counted.
        paymentBusyOpenLinkId: `/api/payments?filter%5Bopen_payment_link_id%5D=${OPEN_LINK_ID}`,
        paymentTokenizationId: `/api/payments?filter%5Btokenization_id%5D=${seeded.payment.tokenId}`,
        paymentStatus: '/api/payments?filter%5Bstatus%5D=partially_refunded',
        paymentMethod: '/api/payments?filter%5Bmethod%5D=card',
        paymentEmail: `/api/payments?filter%5Bemail%5D=${encodeURIComponent(seeded.payment.email)}`,
        paymentReference: `/api/payments?filter%5Breference%5D=${seeded.payment.reference}`,
        paymentDay: `/api/payments?filter%5Bcreated_at_between%5D=${seeded.payment.day}`,
        paymentDated: '/api/payments?filter%5Bcreated_at_between%5D=2000-01-01,2099-12-31',
        paymentDeepest: '/api/payments?per_page=100&page=100',
        // Filtered by a value every payment has: no status fills 10,000 at the small size.
        paymentDeepestMethod: '/api/payments?filter%5Bmethod%5D=card&per_page=100&page=100',
      };
      results[label] = {};
      exports[label] = await exportAll(url, seeded.key, child.pid!);
      const describe = (e: CsvExport & { refundLines: number }) =>
        `${e.lines.toLocaleString('en')} lines (${e.refundLines.toLocaleString('en')} refund lines) in ${e.seconds.toFixed(1)} s, server RSS ${e.rssBeforeMiB} MiB before, at most ${e.rssPeakMiB} MiB during`;
      log(`  csv export: ${describe(exports[label]!)}`);
      for (const [name, path] of Object.entries(paths)) {
        const measured = await measure(url, path, seeded.key, duration, connections, tries);
        results[label]![name] = measured;
        log(`  ${name.padEnd(21)} ${measured.rps.toFixed(0).padStart(7)} req/s   p50 ${String(measured.p50).padStart(4)} ms   p99 ${String(measured.p99).padStart(4)} ms`);
      }
      await stop();
      // The same export from a server whose V8 heap is capped: it streams, so it needs no room for the list.
      const capped = await start([`--max-old-space-size=${CAPPED_HEAP_MIB}`]);
      try {
        cappedExports[label] = { ...(await exportAll(capped.url, seeded.key, capped.child.pid!)), heapMiB: CAPPED_HEAP_MIB };
      } finally {
        await capped.stop();
      }
      if (cappedExports[label].lines !== exports[label]!.lines) throw new Error(`the capped export wrote ${cappedExports[label].lines} lines, not ${exports[label]!.lines}`);
      log(`  csv export, heap capped at ${CAPPED_HEAP_MIB} MiB: ${describe(cappedExports[label])}`);
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
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          ...previous,
          [on === 'postgres' ? 'scalePostgres' : 'scale']: {
            at: new Date().toISOString(),
            sizes,
            results,
            costRatios: ratios,
            csvExports: exports,
            cappedCsvExports: cappedExports,
          },
        },
        null,
        2,
      )}\n`,
    );
    const worst = large!.deepestStatus!;
    log(`worst page at ${sizes[1]!.links.toLocaleString('en')} links (filter[status], page 100 of 100): p50 ${worst.p50} ms, p99 ${worst.p99} ms`);
    log('cost ratio 1,000,000 / 10,000 (time per request; target at most 2):');
    log(`bench-scale${on === 'postgres' ? '-postgres' : ''} ${Object.entries(ratios).map(([name, ratio]) => `${name}=${ratio.toFixed(2)}`).join(' ')}`);
  } finally {
    for (const database of databases) await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
