// The scale bench's data, written through one path on both databases: rows made here and inserted
// with Knex's query builder through the store's executor, many to a statement and many statements to
// a transaction, so the counters' triggers count them as they count the service's own writes.
import { localDay } from '../../server/domain/local-days.js';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import type { Database } from '../../server/store/database.js';

export const OPEN_LINK_ID = 'ffffffffffffffffffffffff';
/** One day of collections: the density is the same at every size, the history longer. */
export const COLLECTIONS_PER_DAY = 1_000;
/** A seeded payout, a week's worth of entries (the second week's: about 10,000 at one payment a minute). */
export const PAYOUT_ID = `8${(1).toString(16).padStart(23, '0')}`;
const BASE_MS = Date.UTC(2020, 0, 1);
/**
 * Rows per INSERT: below SQLite's 500 terms of a compound SELECT (Knex writes a multi-row insert as
 * one on SQLite). Each row passes through the counters' triggers, which update the same few counter
 * rows: PostgreSQL walks every version of such a row made earlier in the same statement, so a much
 * larger statement costs the square of its size there.
 */
const ROWS_PER_INSERT = 400;
/**
 * Statements per transaction: one commit (and one fsync) for this many rows. On PostgreSQL a counter
 * row's versions pile up until the transaction that made them ends, so its transactions stay small.
 */
const INSERTS_PER_TRANSACTION = { sqlite: 50, postgres: 5 };

export interface Seeded {
  /** The seeded business's id, and its key. */
  businessId: number;
  key: string;
  /** The other business's key: a few links and payments of its own. */
  neighbourKey: string;
  getId: string;
  reference: string;
  email: string;
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
  /** An actor of a twentieth of the audit events, and the one target of an event from their middle. */
  audit: { actorId: string; targetId: string };
}

export interface SeedSizes {
  links: number;
  collections: number;
  payments: number;
  events: number;
  /** Audit events (one target each), by 20 actors and 5 actions; none unless asked. */
  audit?: number;
}

const hex = (prefix: string, width: number, n: number) => `${prefix}${Math.floor(n).toString(16).padStart(width, '0')}`;
/** `seconds` after 2020-01-01, in the one text form the store writes (PostgreSQL reads it as a timestamptz). */
const at = (seconds: number) => new Date(BASE_MS + seconds * 1_000).toISOString().replace('Z', '000Z');

/** Inserts the rows `row(0)` to `row(total - 1)` into `table` and says how long it took. */
async function insertAll(db: Database, table: string, total: number, row: (i: number) => Record<string, unknown> | undefined, log: (line: string) => void) {
  const began = performance.now();
  const perTransaction = ROWS_PER_INSERT * INSERTS_PER_TRANSACTION[db.dialect];
  let written = 0;
  for (let from = 0; from < total; from += perTransaction) {
    await db.transaction(async (tx) => {
      for (let start = from; start < Math.min(total, from + perTransaction); start += ROWS_PER_INSERT) {
        const rows: Record<string, unknown>[] = [];
        for (let i = start; i < Math.min(total, start + ROWS_PER_INSERT); i += 1) {
          const made = row(i);
          if (made) rows.push(made);
        }
        if (rows.length > 0) await tx.run(tx.sql(table).insert(rows));
        written += rows.length;
      }
    });
  }
  log(`  ${table}: ${written.toLocaleString('en')} rows in ${((performance.now() - began) / 1000).toFixed(1)} s`);
}

/**
 * Business "Scale" gets `links` payment links; one open link with `collections` collections, one a
 * minute and a half; `payments` payments, one a minute: seven in ten on a payment link of their own,
 * two in ten on small open links (ten each), one in ten a charge on a saved card (ten per token); by
 * status one in twenty failed, the rest paid (none pending: the pending sweep would spend the
 * bench asking the acquirer about them), of which one in seven is refunded in part and one in
 * thirteen in full, each with its refund row; references and e-mails match ten payments each at
 * every size; and `events` webhook events, one outbox entry each, one in twenty given up, one in
 * twenty waiting for a retry far off, the rest delivered. Business "Neighbour" gets a hundred links.
 */
export async function seedScale(db: Database, sizes: SeedSizes, log: (line: string) => void): Promise<Seeded> {
  const started = performance.now();
  await db.migrate();
  const business = await findOrCreateBusiness(db, 'Scale');
  const { key } = await issueKey(db, business.id);
  const neighbour = await findOrCreateBusiness(db, 'Neighbour');
  const { key: neighbourKey } = await issueKey(db, neighbour.id);
  const link = (businessId: number, id: string, i: number) => ({
    _id: id,
    business_id: businessId,
    email: `payer${i % 1000}@example.com`,
    currency: 'MYR',
    amount: 1000 + (i % 1000),
    title: `Invoice ${i}`,
    reference: `REF-${Math.floor(i / 10)}`,
    status: 'Active',
    paid: false,
    created_at: at(i * 60),
    updated_at: at(i * 60),
  });
  await insertAll(db, 'payment_links', sizes.links, (i) => link(business.id, hex('', 24, i), i), log);
  await insertAll(db, 'payment_links', 100, (i) => link(neighbour.id, hex('c', 23, i), i), log);
  const openLink = (id: string, title: string, seconds: number) => ({
    _id: id,
    business_id: business.id,
    currency: 'MYR',
    minimum_amount: 500,
    title,
    status_id: 1,
    created_at: at(seconds),
    updated_at: at(seconds),
  });
  await db.run(db.sql('open_payment_links').insert(openLink(OPEN_LINK_ID, 'Donations', 0)));
  const spacing = 86_400 / COLLECTIONS_PER_DAY;
  const paymentColumns = { currency: 'MYR', method: 'card', provider: 'sandbox', card_brand: 'visa', card_last4: '4242' };
  await insertAll(
    db,
    'payments',
    sizes.collections,
    (i) => ({
      ...paymentColumns,
      _id: hex('c', 23, i),
      business_id: business.id,
      open_payment_link_id: OPEN_LINK_ID,
      attempt_id: `scale-${i}`,
      amount: 500 + (i % 5000),
      status_id: 1,
      payer_name: `Payer ${i}`,
      payer_email: `p${i}@example.com`,
      provider_reference: hex('sbx_col_', 24, i),
      created_at: at(i * spacing),
      updated_at: at(i * spacing),
      local_day: localDay(at(i * spacing), null),
    }),
    log,
  );
  await insertAll(db, 'open_payment_links', Math.ceil(sizes.payments / 50), (i) => openLink(hex('a', 23, i), `Drive ${i}`, i * 3000), log);
  await insertAll(
    db,
    'tokens',
    Math.ceil(sizes.payments / 100),
    (i) => ({
      _id: hex('b', 23, i),
      business_id: business.id,
      email: `saver${i}@example.com`,
      title: `Plan ${i}`,
      description: 'Monthly plan',
      token: hex('', 64, i),
      status: 'active',
      card_brand: 'visa',
      card_last4: '4242',
      card_exp_month: 12,
      card_exp_year: 2039,
      card_reference: hex('sbx_card_', 24, i),
      created_at: at(i * 6000),
      updated_at: at(i * 6000),
    }),
    log,
  );
  const failed = (i: number) => i % 20 === 0;
  const paid = (i: number) => !failed(i);
  const partly = (i: number) => paid(i) && i % 7 === 0;
  const fully = (i: number) => paid(i) && i % 7 !== 0 && i % 13 === 0;
  const amount = (i: number) => 1000 + (i % 1000);
  await insertAll(
    db,
    'payments',
    sizes.payments,
    (i) => ({
      ...paymentColumns,
      _id: hex('e', 23, i),
      business_id: business.id,
      payment_link_id: i % 10 < 7 ? hex('', 24, i) : null,
      open_payment_link_id: i % 10 === 7 || i % 10 === 8 ? hex('a', 23, i / 50) : null,
      tokenization_id: i % 10 === 9 ? hex('b', 23, i / 100) : null,
      attempt_id: `pay-${i}`,
      amount: amount(i),
      amount_refunded: partly(i) ? 100 : fully(i) ? amount(i) : 0,
      refund_state: partly(i) ? 1 : fully(i) ? 2 : 0,
      status_id: failed(i) ? 3 : 1,
      payer_name: `Payer ${i}`,
      payer_email: `payer${Math.floor(i / 10)}@example.com`,
      provider_reference: failed(i) ? null : hex('sbx_auth_', 24, i),
      reference: `REF-${Math.floor(i / 10)}`,
      description: `Invoice ${i}`,
      failure_code: failed(i) ? 'card_declined' : null,
      failure_message: failed(i) ? 'Your card was declined.' : null,
      created_at: at(i * 60 + 30),
      updated_at: at(i * 60 + 30),
      // The business's day, as the store sets it when a payment is recorded (Scale keeps the default zone).
      local_day: localDay(at(i * 60 + 30), null),
    }),
    log,
  );
  await insertAll(
    db,
    'refunds',
    sizes.payments,
    (i) =>
      partly(i) || fully(i)
        ? {
            _id: hex('f', 23, i),
            business_id: business.id,
            payment_id: hex('e', 23, i),
            amount: partly(i) ? 100 : amount(i),
            currency: 'MYR',
            status: 'succeeded',
            reason: `Returned ${i}`,
            provider_reference: hex('sbx_re_', 24, i),
            created_at: at(i * 60 + 90),
            updated_at: at(i * 60 + 90),
          }
        : undefined,
    log,
  );
  // The ledger: each paid payment's charge entry (the sandbox's 2.5%) and each refund's, paid out a week
  // at a time as a busy business's are (about 10,000 entries a payout), all but the last week's; and the
  // daily sums the balance report reads.
  const fee = (i: number) => Math.round(amount(i) * 0.025);
  const dayOf = (seconds: number) => new Date(BASE_MS + seconds * 1_000).toISOString().slice(0, 10);
  const weekOf = (i: number) => Math.floor((i * 60) / (7 * 86_400));
  const lastWeek = weekOf(sizes.payments - 1);
  const payoutOf = (week: number) => hex('8', 23, week);
  const ledgerEntry = (i: number, kind: 'charge' | 'refund') => {
    const refund = kind === 'refund';
    const gross = refund ? -(partly(i) ? 100 : amount(i)) : amount(i);
    const charged = refund ? 0 : fee(i);
    const seconds = i * 60 + (refund ? 90 : 30);
    return {
      _id: hex(refund ? '6' : '7', 23, i),
      business_id: business.id,
      type: kind,
      amount: gross,
      fee: charged,
      net: gross - charged,
      currency: 'MYR',
      available_on: dayOf(seconds + (refund ? 0 : 2 * 86_400)),
      source_type: refund ? 'refund' : 'payment',
      source_id: hex(refund ? 'f' : 'e', 23, i),
      acquirer_reference: hex(refund ? 'sbx_re_' : 'sbx_auth_', 24, i),
      payout_id: weekOf(i) < lastWeek ? payoutOf(weekOf(i)) : null,
      description: `Invoice ${i}`,
      created_at: at(seconds),
    };
  };
  const payouts = new Map<number, { amount: number; count: number }>();
  const daily = new Map<string, { day: string; type: string; count: number; amount: number; fee: number; net: number }>();
  for (let i = 0; i < sizes.payments; i += 1) {
    for (const kind of ['charge', 'refund'] as const) {
      if (kind === 'charge' ? !paid(i) : !(partly(i) || fully(i))) continue;
      const e = ledgerEntry(i, kind);
      const key = `${dayOf(i * 60 + (kind === 'refund' ? 90 : 30))} ${kind}`;
      const sum = daily.get(key) ?? { day: key.slice(0, 10), type: kind, count: 0, amount: 0, fee: 0, net: 0 };
      daily.set(key, { ...sum, count: sum.count + 1, amount: sum.amount + e.amount, fee: sum.fee + e.fee, net: sum.net + e.net });
      if (e.payout_id === null) continue;
      const payout = payouts.get(weekOf(i)) ?? { amount: 0, count: 0 };
      payouts.set(weekOf(i), { amount: payout.amount + e.net, count: payout.count + 1 });
    }
  }
  const arrival = (week: number) => dayOf((week + 1) * 7 * 86_400 + 86_400);
  await insertAll(
    db,
    'payouts',
    lastWeek,
    (week) => ({
      _id: payoutOf(week),
      business_id: business.id,
      provider: 'sandbox',
      amount: payouts.get(week)!.amount,
      currency: 'MYR',
      status: 'paid',
      arrival_date: arrival(week),
      acquirer_reference: `po_scale_${week}`,
      bank_reference: `SBXSCALE${week}`,
      transaction_count: payouts.get(week)!.count,
      reconciliation_status: 'expected',
      created_at: `${arrival(week)}T00:05:00.000000Z`,
      updated_at: `${arrival(week)}T00:05:00.000000Z`,
    }),
    log,
  );
  await insertAll(db, 'balance_transactions', sizes.payments, (i) => (paid(i) ? ledgerEntry(i, 'charge') : undefined), log);
  await insertAll(db, 'balance_transactions', sizes.payments, (i) => (partly(i) || fully(i) ? ledgerEntry(i, 'refund') : undefined), log);
  await insertAll(
    db,
    'balance_transactions',
    lastWeek,
    (week) => ({
      _id: hex('5', 23, week),
      business_id: business.id,
      type: 'payout',
      amount: -payouts.get(week)!.amount,
      fee: 0,
      net: -payouts.get(week)!.amount,
      currency: 'MYR',
      available_on: arrival(week),
      source_type: 'payout',
      source_id: payoutOf(week),
      acquirer_reference: `po_scale_${week}`,
      payout_id: payoutOf(week),
      description: null,
      created_at: `${arrival(week)}T00:05:00.000000Z`,
    }),
    log,
  );
  for (let week = 0; week < lastWeek; week += 1) {
    const key = `${arrival(week)} payout`;
    const sum = daily.get(key) ?? { day: arrival(week), type: 'payout', count: 0, amount: 0, fee: 0, net: 0 };
    daily.set(key, { ...sum, count: sum.count + 1, amount: sum.amount - payouts.get(week)!.amount, net: sum.net - payouts.get(week)!.amount });
  }
  const sums = [...daily.values()];
  await insertAll(db, 'balance_daily_sums', sums.length, (k) => ({ business_id: business.id, currency: 'MYR', ...sums[k]! }), log);
  const topics = ['payment.created', 'payment.failed', 'refund.succeeded', 'payment_link.expired'];
  await insertAll(
    db,
    'outbox',
    sizes.events,
    (i) => {
      const status = i % 20 === 0 ? 'dead' : i % 20 === 10 ? 'pending' : 'delivered';
      const eventId = hex('evt_', 24, i);
      return {
        business_id: business.id,
        channel: 'webhook',
        topic: topics[i % topics.length],
        event_id: eventId,
        payload: JSON.stringify({ id: eventId, body: { trigger_at: at(i * 60 + 31), data: { payment_id: hex('e', 23, i) } } }),
        status,
        attempts: status === 'delivered' ? 1 : 3,
        // A retry far off: the outbox worker leaves the bench's events alone.
        next_attempt_at: status === 'pending' ? '2099-01-01T00:00:00.000000Z' : at(i * 60 + 31),
        last_error: status === 'delivered' ? null : 'HTTP 500',
        delivered_at: status === 'delivered' ? at(i * 60 + 32) : null,
        created_at: at(i * 60 + 31),
        updated_at: at(i * 60 + 32),
      };
    },
    log,
  );
  const actions = ['createPaymentLink', 'updatePaymentLink', 'createRefund', 'auth.login', 'revokeApiKey'];
  const auditId = (i: number) => hex('d', 23, i);
  await insertAll(
    db,
    'audit_events',
    sizes.audit ?? 0,
    (i) => ({
      _id: auditId(i),
      business_id: business.id,
      created_at: at(i * 60 + 33),
      actor_kind: i % 2 === 0 ? 'api_key' : 'user',
      actor_id: hex('9', 23, i % 20),
      actor_label: i % 2 === 0 ? 'Back office' : `staff${i % 20}@example.com`,
      action: actions[i % actions.length],
      outcome: i % 50 === 0 ? 'refused' : 'succeeded',
      status: i % 50 === 0 ? 422 : 200,
      client_address: '127.0.0.1',
      user_agent: 'scale-bench',
      request_id: hex('req_', 24, i),
    }),
    log,
  );
  await insertAll(
    db,
    'audit_event_targets',
    sizes.audit ?? 0,
    (i) => ({ event_id: auditId(i), business_id: business.id, target_id: hex('', 24, i), created_at: at(i * 60 + 33) }),
    log,
  );
  // No ANALYZE on SQLite: a production database file has no statistics either, and the plans must hold
  // without. PostgreSQL's autovacuum analyzes a table soon after a load like this one: done here at once.
  if (db.dialect === 'postgres') await db.run(db.sql.raw('analyze'));
  log(`  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const lastDay = new Date(BASE_MS + (sizes.collections - 1) * spacing * 1000).toISOString().slice(0, 10);
  // Payments from the middle of the table: i % 10 = 0 is on a payment link, i + 7 on an open link, i + 9 a charge.
  const middle = Math.floor(sizes.payments / 20) * 10 + 1;
  const middleDay = new Date(BASE_MS + middle * 60 * 1000).toISOString().slice(0, 10);
  return {
    businessId: business.id,
    key,
    neighbourKey,
    getId: hex('', 24, sizes.links / 2),
    reference: `REF-${Math.floor(sizes.links / 20)}`,
    email: 'payer7@example.com',
    range: `${lastDay},${lastDay}`,
    payment: {
      id: hex('e', 23, middle),
      linkId: hex('', 24, middle),
      openLinkId: hex('a', 23, (middle + 6) / 50),
      tokenId: hex('b', 23, (middle + 8) / 100),
      email: `payer${Math.floor(middle / 10)}@example.com`,
      reference: `REF-${Math.floor(middle / 10)}`,
      day: `${middleDay},${middleDay}`,
    },
    audit: { actorId: hex('9', 23, 7), targetId: hex('', 24, Math.floor((sizes.audit ?? 0) / 2)) },
  };
}
