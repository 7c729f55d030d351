// `npm run bench -- --contention`: do concurrent payments of one business queue on each other on
// PostgreSQL? Every payment of a business updates counter rows of its day and year (store/counters/),
// and a row lock is held until the transaction that took it commits. The bench takes card payments on
// open links through the card payment use case (the pay page's work, without HTTP), with `payers`
// concurrent payers each on a link of its own: all of one business, then each of a business of its
// own, and prints both throughputs and their ratio (target: one business at least 0.7 of the spread
// one), with how many backends were seen waiting on a lock. It runs in a database of its own on
// CONTENTION_POSTGRES_URL (by default the local server), dropped afterwards.
import { createThrowawayDatabase } from '../throwaway-database.js';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { checkCard } from '../../server/acquirers/cards.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { openDatabase, type Database } from '../../server/store/database.js';
import { insertOpenPaymentLink } from '../../server/store/open-payment-links.js';
import { payByCard } from '../../server/usecases/payer/card-form.js';
import type { PaymentTarget } from '../../server/usecases/payer/pay-page.js';
import type { UseCaseContext } from '../../server/usecases/platform/context.js';
import { sandboxContext } from './sandbox-context.js';

export interface ContentionOptions {
  log: (line: string) => void;
  payers?: number;
  seconds?: number;
  rounds?: number;
}

export interface ContentionResult {
  payers: number;
  oneBusiness: number;
  spread: number;
  ratio: number;
  met: boolean;
}

const TARGET = 0.7;
const card = (() => {
  const checked = checkCard({ number: '4242424242424242', expiry: '12/39', cvc: '123' });
  if (!checked.ok) throw new Error('the sandbox test card does not pass the card checks');
  return checked.card;
})();

async function linkOf(db: Database, businessId: number, title: string): Promise<PaymentTarget> {
  const link = await insertOpenPaymentLink(db, businessId, {
    currency: 'MYR',
    minimum_amount: 500,
    title,
    description: null,
    redirect_url: null,
    reference: null,
    reference_2: null,
    expires_at: null,
    max_payments: null,
    locale: null,
  });
  return { kind: 'open_payment_link', id: link._id, businessId, currency: 'MYR', title, reference: null, reference_2: null };
}

/** Payments a second while each payer pays on its own target, one payment after another, for `seconds`. */
async function payFor(ctx: UseCaseContext, targets: PaymentTarget[], seconds: number, monitor: pg.Client): Promise<{ rate: number; waiting: string }> {
  let paid = 0;
  let samples = 0;
  const waits = new Map<string, number>();
  const deadline = performance.now() + seconds * 1000;
  // What the backends of this database wait for, sampled: row locks held by another transaction show as `transactionid` or `tuple`.
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void monitor
      .query<{ wait_event: string; n: string }>(
        "select wait_event, count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database() group by wait_event",
      )
      .then(({ rows }) => {
        samples += 1;
        for (const row of rows) waits.set(row.wait_event, (waits.get(row.wait_event) ?? 0) + Number(row.n));
      })
      .finally(() => (sampling = false));
  }, 50);
  const started = performance.now();
  await Promise.all(
    targets.map(async (target) => {
      while (performance.now() < deadline) {
        const outcome = await payByCard(ctx, { target, attemptId: randomUUID(), amount: 1000, payerName: null, payerEmail: null, card });
        if (outcome.result !== 'paid') throw new Error(`a bench payment was ${outcome.result}`);
        paid += 1;
      }
    }),
  );
  clearInterval(sampler);
  const mean = (n: number) => (samples > 0 ? n / samples : 0);
  const total = [...waits.values()].reduce((sum, n) => sum + n, 0);
  const byEvent = [...waits].map(([event, n]) => `${event} ${mean(n).toFixed(1)}`).join(', ');
  return { rate: paid / ((performance.now() - started) / 1000), waiting: `${mean(total).toFixed(1)} waiting on a lock${byEvent ? `: ${byEvent}` : ''}` };
}

export async function runContention({ log, payers = 16, seconds = 10, rounds = 2 }: ContentionOptions): Promise<ContentionResult> {
  const server = process.env.CONTENTION_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `payments_contention_${process.pid}_${randomBytes(3).toString('hex')}`;
  const database = await createThrowawayDatabase(server, name);
  const db = openDatabase(database.url, { poolMax: payers + 2 });
  const monitor = new pg.Client({ connectionString: database.url });
  try {
    await db.migrate();
    await monitor.connect();
    const one = await findOrCreateBusiness(db, 'One business');
    const together: PaymentTarget[] = [];
    const apart: PaymentTarget[] = [];
    for (let i = 0; i < payers; i += 1) {
      together.push(await linkOf(db, one.id, `Together ${i}`));
      apart.push(await linkOf(db, (await findOrCreateBusiness(db, `Business ${i}`)).id, `Apart ${i}`));
    }
    const publicUrl = 'http://127.0.0.1:1';
    const ctx = sandboxContext(db, publicUrl);
    log(`contention: ${payers} concurrent payers on PostgreSQL, each paying by card on an open link of its own, ${seconds} s per measurement, best of ${rounds}`);
    await payFor(ctx, apart, 2, monitor); // warm-up: connections, prepared plans, the first counter rows
    let best = { together: 0, apart: 0 };
    for (let round = 1; round <= rounds; round += 1) {
      const oneBusiness = await payFor(ctx, together, seconds, monitor);
      const spread = await payFor(ctx, apart, seconds, monitor);
      log(
        `  round ${round}: one business ${oneBusiness.rate.toFixed(0)} payments/s (${oneBusiness.waiting}), ` +
          `${payers} businesses ${spread.rate.toFixed(0)} payments/s (${spread.waiting})`,
      );
      best = { together: Math.max(best.together, oneBusiness.rate), apart: Math.max(best.apart, spread.rate) };
    }
    const ratio = best.together / best.apart;
    const met = ratio >= TARGET;
    log(`contention one-business=${best.together.toFixed(0)}/s spread=${best.apart.toFixed(0)}/s ratio=${ratio.toFixed(2)} (target >= ${TARGET}: ${met ? 'met' : 'NOT MET'})`);
    return { payers, oneBusiness: best.together, spread: best.apart, ratio, met };
  } finally {
    await monitor.end().catch(() => undefined);
    await db.close();
    await database.drop();
  }
}
