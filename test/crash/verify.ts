// What must hold after a crash: through the API of the restarted server, and in the database file
// once the last server has stopped. Each check names the acknowledged write it concerns, so the
// test can count lost writes apart from other inconsistencies.
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { cents, type AckedCreate, type Json, type Ledger, type Life } from './load.js';

export class Findings {
  readonly problems: string[] = [];
  /** Ids of acknowledged writes found missing or changed. */
  readonly lost = new Set<string>();

  problem(what: string, lostId?: string): void {
    this.problems.push(what);
    if (lostId) this.lost.add(lostId);
  }
}

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** The stored answer to an Idempotency-Key must survive with the record it describes, and create nothing more. */
async function verifyReplay(life: Life, path: string, id: string, acked: AckedCreate, findings: Findings, when: string): Promise<void> {
  if (!acked.idempotencyKey) return;
  const replay = await life.api('POST', path, acked.request, { 'Idempotency-Key': acked.idempotencyKey });
  if (replay.status !== 200 || replay.headers.get('idempotent-replayed') !== 'true' || !isDeepStrictEqual(replay.json, acked.response)) {
    findings.problem(
      `${when}: replaying Idempotency-Key ${acked.idempotencyKey} of ${id} answered ${replay.status} replayed=${replay.headers.get('idempotent-replayed')} ${JSON.stringify(replay.json)}`,
      id,
    );
  }
}

const UNCHANGED_BY_PAYMENT = (data: Json) => Object.fromEntries(Object.entries(data).filter(([field]) => !['status', 'paid', 'updated_at'].includes(field)));

/** Totals per open link as the API reports them, for comparison with the file. */
export type ApiTotals = Map<string, { cents: number; count: number }>;

export async function verifyThroughApi(life: Life, ledger: Ledger, findings: Findings, when: string): Promise<ApiTotals> {
  await inParallel([...ledger.paymentLinks], 8, async ([id, acked]) => {
    const { status, json } = await life.api('GET', `/payment-links/${id}`);
    if (status !== 200) return findings.problem(`${when}: acknowledged payment link ${id} answers ${status}`, id);
    const data = json.data as Json;
    if (!isDeepStrictEqual(UNCHANGED_BY_PAYMENT(data), UNCHANGED_BY_PAYMENT(acked.data))) {
      findings.problem(`${when}: payment link ${id} reads back as ${JSON.stringify(data)}, created as ${JSON.stringify(acked.data)}`, id);
    }
    const paymentId = ledger.paid.get(id);
    if (paymentId && (data.status !== 'Paid' || data.paid !== true)) {
      findings.problem(`${when}: payment link ${id} paid by acknowledged payment ${paymentId} reads ${data.status}/${data.paid}`, paymentId);
    }
    if (!paymentId && !ledger.uncertainPaid.has(id) && (data.status !== 'Active' || data.paid !== false || data.updated_at !== acked.data.updated_at)) {
      findings.problem(`${when}: payment link ${id}, never paid, reads ${data.status}/${data.paid} updated ${String(data.updated_at)}`);
    }
    if ((data.status === 'Paid') !== (data.paid === true)) findings.problem(`${when}: payment link ${id} reads status ${data.status} with paid ${data.paid}`);

    await verifyReplay(life, '/payment-links', id, acked, findings, when);
  });

  /** payments_count of each open link, as its record reads. */
  const counts = new Map<string, number>();
  await inParallel([...ledger.openLinks], 8, async ([id, acked]) => {
    const { status, json } = await life.api('GET', `/open-payment-links/${id}`);
    if (status !== 200) return findings.problem(`${when}: acknowledged open link ${id} answers ${status}`, id);
    // Payments count themselves on the link (payments_count, checked against the totals below); nothing else moves.
    const { payments_count: _count, ...data } = json.data as Json;
    const { payments_count: _created, ...created } = acked.data;
    if (!isDeepStrictEqual(data, created))
      findings.problem(`${when}: open link ${id} reads back as ${JSON.stringify(json.data)}, created as ${JSON.stringify(acked.data)}`, id);
    counts.set(id, Number(_count));
    await verifyReplay(life, '/open-payment-links', id, acked, findings, when);
  });

  const totals: ApiTotals = new Map();
  await inParallel([...ledger.openLinks.keys()], 8, async (id) => {
    const { status, json } = await life.api('GET', `/open-payment-links/${id}/total-collection`);
    if (status !== 200) return findings.problem(`${when}: total-collection of ${id} answers ${status}`);
    const data = json.data as { total_amount: string; total_count: number };
    const total = { cents: cents(data.total_amount), count: data.total_count };
    totals.set(id, total);
    if (counts.get(id) !== total.count) findings.problem(`${when}: open link ${id} counts ${counts.get(id)} payments, its totals ${total.count}`, id);
    const acked = ledger.openPayments.filter((p) => p.openLinkId === id);
    const ackedCents = acked.reduce((sum, p) => sum + p.cents, 0);
    // Committed-but-unanswered payments may add to the total; acknowledged ones must all be in it.
    if (total.cents < ackedCents || total.count < acked.length) {
      findings.problem(
        `${when}: open link ${id} totals ${total.cents} cents in ${total.count} payments, below the acknowledged ${ackedCents} in ${acked.length}`,
        id,
      );
    }
  });
  return totals;
}

interface PaymentRow {
  _id: string;
  payment_link_id: string | null;
  open_payment_link_id: string | null;
  attempt_id: string;
  amount: number;
  status_id: number;
  provider_reference: string | null;
  card_last4: string | null;
}

export interface FileFigures {
  payments: number;
  paid: number;
  /** Attempts recorded before the acquirer was asked, whose process died before they settled. */
  pending: number;
  /**
   * Keyed creates that got no answer but whose record committed while the key stayed in_flight: the
   * response is saved after the record's own commit, so a retry once the key counts as abandoned
   * (ABANDONED_AFTER_MS) runs the create again. Not a lost write; reported, not asserted.
   */
  keyedCommittedInFlight: number;
}

export function verifyFile(file: string, ledger: Ledger, apiTotals: ApiTotals, findings: Findings): FileFigures {
  const db = new Database(file);
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') findings.problem(`integrity_check: ${String(integrity)}`);
    const orphans = db.pragma('foreign_key_check') as unknown[];
    if (orphans.length > 0) findings.problem(`foreign_key_check: ${JSON.stringify(orphans)}`);

    const payments = db
      .prepare('select _id, payment_link_id, open_payment_link_id, attempt_id, amount, status_id, provider_reference, card_last4 from payments')
      .all() as PaymentRow[];
    const links = new Map(
      (
        db.prepare('select _id, amount, status, paid, deleted_at from payment_links').all() as {
          _id: string;
          amount: number;
          status: string;
          paid: number;
          deleted_at: string | null;
        }[]
      ).map((l) => [l._id, l]),
    );
    const openLinks = new Map(
      (db.prepare('select _id, minimum_amount from open_payment_links').all() as { _id: string; minimum_amount: number }[]).map((l) => [l._id, l]),
    );
    const outbox = db.prepare('select topic, payload from outbox').all() as { topic: string; payload: string }[];
    const byId = new Map(payments.map((p) => [p._id, p]));
    const paidFor = new Map<string, PaymentRow[]>();
    for (const p of payments) if (p.status_id === 1 && p.payment_link_id) paidFor.set(p.payment_link_id, [...(paidFor.get(p.payment_link_id) ?? []), p]);

    // Every acknowledged write is in the file as it was acknowledged.
    for (const id of ledger.paymentLinks.keys()) if (!links.has(id)) findings.problem(`file: acknowledged payment link ${id} is missing`, id);
    for (const id of ledger.openLinks.keys()) if (!openLinks.has(id)) findings.problem(`file: acknowledged open link ${id} is missing`, id);
    for (const [linkId, paymentId] of ledger.paid) {
      const p = byId.get(paymentId);
      if (!p || p.status_id !== 1 || p.payment_link_id !== linkId || p.amount !== links.get(linkId)?.amount) {
        findings.problem(`file: acknowledged payment ${paymentId} of link ${linkId} is ${JSON.stringify(p)}`, paymentId);
      }
    }
    for (const acked of ledger.openPayments) {
      const p = byId.get(acked.paymentId);
      if (!p || p.status_id !== 1 || p.open_payment_link_id !== acked.openLinkId || p.amount !== acked.cents) {
        findings.problem(
          `file: acknowledged open-link payment ${acked.paymentId} (${acked.cents} cents to ${acked.openLinkId}) is ${JSON.stringify(p)}`,
          acked.paymentId,
        );
      }
    }
    const idempotency = db.prepare('select state, response_status from idempotency_keys where idempotency_key = ?');
    for (const [id, acked] of [...ledger.paymentLinks, ...ledger.openLinks]) {
      if (!acked.idempotencyKey) continue;
      const row = idempotency.get(acked.idempotencyKey) as { state: string; response_status: number } | undefined;
      if (row?.state !== 'done' || row.response_status !== 200)
        findings.problem(`file: Idempotency-Key ${acked.idempotencyKey} of ${id} is ${JSON.stringify(row)}`, id);
    }
    for (const [id, acked] of ledger.paymentLinks) {
      if (acked.request.send_email && !outbox.some((e) => e.topic === 'payment_link.sent' && e.payload.includes(id))) {
        findings.problem(`file: payment link ${id} was created with send_email but has no payment_link.sent in the outbox`, id);
      }
    }

    // No paid link without its payment, no payment without its link, and each paid payment's receipt.
    for (const link of links.values()) {
      const successes = paidFor.get(link._id) ?? [];
      if ((link.status === 'Paid') !== (link.paid === 1)) findings.problem(`file: payment link ${link._id} has status ${link.status} and paid ${link.paid}`);
      if (link.paid === 1 && successes.length !== 1) findings.problem(`file: paid payment link ${link._id} has ${successes.length} successful payments`);
      if (link.paid === 0 && successes.length !== 0)
        findings.problem(`file: unpaid payment link ${link._id} has successful payments ${successes.map((p) => p._id).join(', ')}`);
    }
    for (const p of payments) {
      const link = p.payment_link_id ? links.get(p.payment_link_id) : undefined;
      const open = p.open_payment_link_id ? openLinks.get(p.open_payment_link_id) : undefined;
      if (!link && !open) findings.problem(`file: payment ${p._id} has no link`);
      if (p.status_id !== 1) continue;
      if (link && p.amount !== link.amount) findings.problem(`file: payment ${p._id} of ${p.amount} cents for a link of ${link.amount}`);
      if (open && p.amount < open.minimum_amount) findings.problem(`file: payment ${p._id} of ${p.amount} cents below the minimum ${open.minimum_amount}`);
      if (!p.provider_reference || p.card_last4 !== '4242')
        findings.problem(`file: paid payment ${p._id} lacks its authorization or card: ${JSON.stringify(p)}`);
      if (!outbox.some((e) => e.topic === 'payment.receipt' && e.payload.includes(p._id)))
        findings.problem(`file: paid payment ${p._id} has no receipt in the outbox`);
    }

    for (const id of ledger.openLinks.keys()) {
      const stored = payments.filter((p) => p.status_id === 1 && p.open_payment_link_id === id);
      const storedCents = stored.reduce((sum, p) => sum + p.amount, 0);
      const api = apiTotals.get(id);
      if (api?.cents !== storedCents || api.count !== stored.length) {
        findings.problem(`file: open link ${id} stores ${storedCents} cents in ${stored.length} payments; the API reported ${JSON.stringify(api)}`);
      }
    }

    // The counts kept by triggers commit with the rows they count, or not at all.
    for (const [kind, counter] of [
      ['payment_links', 'payment_link_counts'],
      ['open_payment_links', 'open_payment_link_counts'],
    ]) {
      const kept = db.prepare(`select coalesce(sum(live), 0) as live from ${counter}_by_year`).get() as { live: number };
      const actual = db.prepare(`select count(*) as live from ${kind} where deleted_at is null`).get() as { live: number };
      if (kept.live !== actual.live) findings.problem(`file: ${counter} says ${kept.live} live ${kind}, the table has ${actual.live}`);
    }

    let keyedCommittedInFlight = 0;
    for (const [key, { table, reference }] of ledger.unansweredKeyed) {
      const row = idempotency.get(key) as { state: string } | undefined;
      const committed = db.prepare(`select count(*) as n from ${table} where reference = ?`).get(reference) as { n: number };
      if (row?.state === 'in_flight' && committed.n > 0) keyedCommittedInFlight += 1;
    }

    return {
      payments: payments.length,
      paid: payments.filter((p) => p.status_id === 1).length,
      pending: payments.filter((p) => p.status_id === 2).length,
      keyedCommittedInFlight,
    };
  } finally {
    db.close();
  }
}
