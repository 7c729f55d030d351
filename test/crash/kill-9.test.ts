// Crash safety of the embedded default: the server is killed with SIGKILL at random moments while
// concurrent creates and payments are in flight, and restarted on the same SQLite file each time.
// Whatever it acknowledged (200 to a create, 303 "paid" to a payer) must be there after every
// restart, unchanged and consistent; what was in flight may have happened or not, but never half.
// Always SQLite, on both suite runs: the durability under test is the embedded database's own.
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { openDatabase } from '../../server/store/database.js';
import { freePort, startChild, type ChildService } from '../support/child.js';
import { withServiceOver } from '../support/service.js';
import { sleep, waitFor } from '../support/wait.js';
import { Ledger, Life, mulberry32, worker } from './load.js';
import { Findings, verifyFile, verifyThroughApi } from './verify.js';

const KILLS = 5;
const WORKERS = 10;
/** Each kill comes this long after the load starts: early enough that some lives are short, late enough for hundreds of writes. */
const KILL_AFTER_MS = { min: 300, max: 2_500 };
const MIN_ACKED_PER_LIFE = 10;

const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : randomInt(2 ** 31);
const dir = mkdtempSync(join(tmpdir(), 'payments-kill9-'));
const file = join(dir, 'crash.sqlite');
let current: ChildService | undefined;

afterAll(async () => {
  await current?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('SIGKILL under load on the embedded database', () => {
  it(`loses no acknowledged create or payment across ${KILLS} kills`, async () => {
    const started = Date.now();
    console.log(`crash: seed ${seed} (CRASH_SEED=${seed} repeats the kill delays and the operation mix)`);
    const random = mulberry32(seed);
    const env = {
      DATABASE_URL: `sqlite:${file}`,
      MAIL_DIR: join(dir, 'mail'),
      RATE_LIMIT_PER_SECOND: '1000000',
      PAGE_RATE_LIMIT_PER_ADDRESS: '1000000',
      PAGE_RATE_LIMIT_PER_LINK: '1000000',
      PAGE_RATE_LIMIT_PER_CARD: '1000000',
      PAYER_EMAILS_PER_DAY: '1000000',
      OUTBOX_POLL_MS: '200',
      // A slower acquirer widens the windows between recording an attempt, authorizing, and the
      // transaction that marks the link paid (capture runs inside it), so kills land inside them.
      SANDBOX_LATENCY_MS: '3',
      SHUTDOWN_TIMEOUT_MS: '5000',
    };

    const db = openDatabase(env.DATABASE_URL);
    await db.migrate();
    const { key } = await issueKey(db, (await findOrCreateBusiness(db, 'Crash Test')).id);
    await db.close();

    // One port for every life, so the payment_url of each record reads back the same.
    const port = await freePort();
    const ledger = new Ledger();
    const findings = new Findings();
    for (let kill = 1; kill <= KILLS; kill += 1) {
      current = await startChild(env, port);
      const life = new Life(current.url, key);
      if (kill > 1) await verifyThroughApi(life, ledger, findings, `after kill ${kill - 1}`);
      const before = life.counts.requests;

      const loadStarted = Date.now();
      const workers = Array.from({ length: WORKERS }, (_, i) => worker(life, ledger, mulberry32(seed + kill * 1_000 + i)));
      const delay = KILL_AFTER_MS.min + Math.floor(random() * (KILL_AFTER_MS.max - KILL_AFTER_MS.min));
      // On a crowded CI machine a short life might acknowledge next to nothing; each kill must follow some writes.
      try {
        await Promise.all([
          sleep(delay),
          waitFor('writes acknowledged before the kill', () => life.counts.acknowledged >= MIN_ACKED_PER_LIFE || life.unexpected.length > 0, 30_000),
        ]);
      } finally {
        // Workers stop starting operations even when the wait fails, or they would spin against a dead port.
        life.stopped = true;
      }
      const loadMs = Date.now() - loadStarted;
      const inFlight = life.inFlight;
      const output = current.output;
      const code = await current.kill('SIGKILL');
      current = undefined;
      // A process that died on its own before the kill is a failure of its own, not a crash we caused.
      if (code !== null) throw new Error(`the server exited with ${code} before kill ${kill}:\n${output().slice(-4_000)}`);
      await Promise.all(workers);
      console.log(
        `crash: kill ${kill} after ${loadMs} ms of load (drawn: ${delay} ms), ${inFlight} requests in flight; ${life.counts.requests - before} requests, ` +
          `${life.counts.acknowledged} writes acknowledged in this life (${ledger.acknowledgedWrites} in all)`,
      );
      // The kill must land on work under way, or it tests nothing a clean stop would not.
      expect(inFlight).toBeGreaterThan(0);
      expect(life.unexpected).toEqual([]);
    }

    current = await startChild(env, port);
    const life = new Life(current.url, key);
    const totals = await verifyThroughApi(life, ledger, findings, `after kill ${KILLS}`);
    await current.kill('SIGTERM');
    current = undefined;
    const figures = verifyFile(file, ledger, totals, findings);

    console.log(
      `crash: file holds ${figures.payments} payment attempts, ${figures.paid} paid, ${figures.pending} cut short before settling; ` +
        `acknowledged: ${ledger.paymentLinks.size} payment links, ${ledger.openLinks.size} open links, ${ledger.paid.size} link payments, ${ledger.openPayments.length} open-link payments`,
    );
    console.log(
      `crash: ${ledger.unansweredKeyed.size} keyed creates went unanswered at a kill; ${figures.keyedCommittedInFlight} of them committed with their Idempotency-Key left in_flight`,
    );
    console.log(
      `crash: ${KILLS} kills survived, ${ledger.acknowledgedWrites} acknowledged writes checked, ${findings.lost.size} lost (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    expect(findings.problems).toEqual([]);
    expect(findings.lost.size).toBe(0);

    // What the kills cut short does not stay pending: the pending sweep fails each such attempt as
    // abandoned (the sandbox captures only in the transaction that records a payment paid, so none took money).
    await withServiceOver(env.DATABASE_URL, { mail: { mailDir: env.MAIL_DIR }, pendingSweep: { everyMs: 50, graceMs: 0 } }, async (sweeper) => {
      const states = async () => {
        const rows = await sweeper.db.all<{ status_id: number; failure_code: string | null; n: number }>(
          sweeper.db.sql('payments').select('status_id', 'failure_code').count({ n: '*' }).groupBy('status_id', 'failure_code'),
        );
        return rows.map((row) => ({ ...row, n: Number(row.n) }));
      };
      await waitFor('the pending sweep', async () => !(await states()).some((row) => row.status_id === 2), 15_000);
      const abandoned = (await states()).find((row) => row.status_id === 3 && row.failure_code === 'abandoned')?.n ?? 0;
      console.log(`crash: the pending sweep failed ${abandoned} attempts as abandoned; none is left pending`);
      expect(abandoned).toBe(figures.pending);
    });
    // A keyed create commits with its stored answer or not at all, so no retry can create it twice.
    expect(figures.keyedCommittedInFlight).toBe(0);
    // Enough of every kind of write was acknowledged for the checks above to mean something.
    expect(ledger.paymentLinks.size).toBeGreaterThan(20);
    expect(ledger.openLinks.size).toBeGreaterThan(3);
    expect(ledger.paid.size).toBeGreaterThan(10);
    expect(ledger.openPayments.length).toBeGreaterThan(10);
  }, 120_000);
});
