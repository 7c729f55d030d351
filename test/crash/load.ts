// The load the crash test puts on a live server, and the record of what the server acknowledged.
// Only an answer the server actually gave (2xx for an API create, 303 with payment_status=1 for a
// payment) enters the ledger; what was in flight when the process died is merely "uncertain".
import { GOOD_CARD, Payer } from '../support/payer.js';

/** Deterministic per seed, so a failing run's kill delays and operation mix can be replayed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Json = Record<string, unknown>;

export interface AckedCreate {
  /** The whole 200 body of the create, which an Idempotency-Key replay must return unchanged. */
  response: Json;
  data: Json;
  request: Json;
  idempotencyKey?: string;
}

export type AckedPaymentLink = AckedCreate;

export interface AckedOpenLink extends AckedCreate {
  minimumCents: number;
}

export interface AckedOpenPayment {
  paymentId: string;
  openLinkId: string;
  cents: number;
}

export class Ledger {
  readonly paymentLinks = new Map<string, AckedPaymentLink>();
  readonly openLinks = new Map<string, AckedOpenLink>();
  /** Payment link id → the payment id its payer was redirected with. */
  readonly paid = new Map<string, string>();
  readonly openPayments: AckedOpenPayment[] = [];
  /** Payment links whose payment was in flight at a kill: paid or not, both are correct. */
  readonly uncertainPaid = new Set<string>();
  /** Creates sent with an Idempotency-Key that got no answer (the process died), by key: the reference they carried. */
  readonly unansweredKeyed = new Map<string, { table: 'payment_links' | 'open_payment_links'; reference: string }>();
  /** Payment links a worker is paying right now, so two workers never race for one (that race has its own test). */
  readonly paying = new Set<string>();
  private counter = 0;

  next(): number {
    return ++this.counter;
  }

  get acknowledgedWrites(): number {
    return this.paymentLinks.size + this.openLinks.size + this.paid.size + this.openPayments.length;
  }
}

/** One life of the server process, from start to kill. */
export class Life {
  stopped = false;
  inFlight = 0;
  maxInFlight = 0;
  /** Answers no healthy server should give, and transport failures before the kill. */
  readonly unexpected: string[] = [];
  readonly counts = { requests: 0, acknowledged: 0 };

  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  async track<T>(work: Promise<T>): Promise<T> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.counts.requests += 1;
    try {
      return await work;
    } finally {
      this.inFlight -= 1;
    }
  }

  api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Json; headers: Headers }> {
    return this.track(
      (async () => {
        const response = await fetch(`${this.url}/api${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.key}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, json: text ? (JSON.parse(text) as Json) : {}, headers: response.headers };
      })(),
    );
  }

  /** A failure is expected only once the process is being killed. */
  complain(what: string): void {
    if (!this.stopped) this.unexpected.push(what);
  }
}

export const cents = (units: string) => Math.round(Number(units) * 100);
export const units = (value: number) => (value / 100).toFixed(2);

/** Notes a keyed create until it is answered, so the file can later show what became of unanswered ones. */
async function keyed<T>(
  ledger: Ledger,
  key: string | undefined,
  table: 'payment_links' | 'open_payment_links',
  request: Json,
  send: () => Promise<T>,
): Promise<T> {
  if (!key) return send();
  ledger.unansweredKeyed.set(key, { table, reference: request.reference as string });
  const answer = await send();
  ledger.unansweredKeyed.delete(key);
  return answer;
}

async function createPaymentLink(life: Life, ledger: Ledger, random: () => number): Promise<void> {
  const n = ledger.next();
  const request: Json = {
    email: `payer${n}@example.com`,
    currency: 'MYR',
    amount: 500 + Math.floor(random() * 299_500),
    title: `Invoice ${n}`,
    description: random() < 0.5 ? `Crash test invoice ${n}` : undefined,
    reference: `REF-${n}`,
    // With send_email the link and its e-mail go through a Knex transaction, not the batched writer.
    send_email: random() < 0.25,
  };
  const idempotencyKey = random() < 0.5 ? `crash-${n}-${Math.floor(random() * 1e9)}` : undefined;
  const { status, json } = await keyed(ledger, idempotencyKey, 'payment_links', request, () =>
    life.api('POST', '/payment-links', request, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
  );
  if (status !== 200) return life.complain(`POST /payment-links answered ${status}: ${JSON.stringify(json)}`);
  const data = json.data as Json;
  ledger.paymentLinks.set(data._id as string, { response: json, data, request, idempotencyKey });
  life.counts.acknowledged += 1;
}

async function createOpenLink(life: Life, ledger: Ledger, random: () => number): Promise<void> {
  const n = ledger.next();
  const minimumCents = 500 + Math.floor(random() * 1_500);
  const request: Json = { currency: 'MYR', minimum_amount: units(minimumCents), title: `Donations ${n}`, reference: `OPEN-${n}` };
  const idempotencyKey = random() < 0.5 ? `crash-open-${n}-${Math.floor(random() * 1e9)}` : undefined;
  const { status, json } = await keyed(ledger, idempotencyKey, 'open_payment_links', request, () =>
    life.api('POST', '/open-payment-links', request, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
  );
  if (status !== 200) return life.complain(`POST /open-payment-links answered ${status}: ${JSON.stringify(json)}`);
  const data = json.data as Json;
  ledger.openLinks.set(data._id as string, { response: json, data, request, idempotencyKey, minimumCents });
  life.counts.acknowledged += 1;
}

/** The payment id of a 303 that says "paid", or undefined. */
function paidRedirect(status: number, location: string | null): string | undefined {
  if (status !== 303 || !location) return undefined;
  const query = new URL(location).searchParams;
  return query.get('payment_status') === '1' ? (query.get('payment_id') ?? undefined) : undefined;
}

async function payPaymentLink(life: Life, ledger: Ledger, random: () => number): Promise<void> {
  const candidates = [...ledger.paymentLinks.keys()].filter((id) => !ledger.paid.has(id) && !ledger.uncertainPaid.has(id) && !ledger.paying.has(id));
  if (candidates.length === 0) return createPaymentLink(life, ledger, random);
  const id = candidates[Math.floor(random() * candidates.length)]!;
  ledger.paying.add(id);
  let submitted = false;
  let answered = false;
  try {
    const payer = new Payer(life.url);
    const form = await life.track(payer.open(`/payment/pay?id=${id}`));
    if (form.status !== 200) return life.complain(`GET /payment/pay?id=${id} answered ${form.status}`);
    submitted = true;
    const answer = await life.track(payer.submit(form, { name: `Payer ${id.slice(-4)}`, ...GOOD_CARD }));
    answered = true;
    const paymentId = paidRedirect(answer.status, answer.location);
    if (!paymentId) return life.complain(`paying ${id} answered ${answer.status} ${answer.location ?? ''}`);
    ledger.paid.set(id, paymentId);
    life.counts.acknowledged += 1;
  } finally {
    // Submitted without an answer (the process died mid-payment): it may or may not have committed.
    if (submitted && !answered) ledger.uncertainPaid.add(id);
    ledger.paying.delete(id);
  }
}

async function payOpenLink(life: Life, ledger: Ledger, random: () => number): Promise<void> {
  const ids = [...ledger.openLinks.keys()];
  if (ids.length === 0) return createOpenLink(life, ledger, random);
  const id = ids[Math.floor(random() * ids.length)]!;
  const link = ledger.openLinks.get(id)!;
  const amount = link.minimumCents + Math.floor(random() * 50_000);
  const payer = new Payer(life.url);
  const form = await life.track(payer.open(`/payment/open-link/pay?id=${id}`));
  if (form.status !== 200) return life.complain(`GET /payment/open-link/pay?id=${id} answered ${form.status}`);
  const n = ledger.next();
  const answer = await life.track(payer.submit(form, { amount: units(amount), name: `Donor ${n}`, email: `donor${n}@example.com`, ...GOOD_CARD }));
  const paymentId = paidRedirect(answer.status, answer.location);
  if (!paymentId) return life.complain(`paying open link ${id} answered ${answer.status} ${answer.location ?? ''}`);
  ledger.openPayments.push({ paymentId, openLinkId: id, cents: amount });
  life.counts.acknowledged += 1;
}

/** Operations until the life is stopped: 30% payment-link creates, 10% open-link creates, 35% and 25% payments. */
export async function worker(life: Life, ledger: Ledger, random: () => number): Promise<void> {
  while (!life.stopped) {
    const roll = random();
    const op = roll < 0.3 ? createPaymentLink : roll < 0.4 ? createOpenLink : roll < 0.75 ? payPaymentLink : payOpenLink;
    try {
      await op(life, ledger, random);
    } catch (error) {
      life.complain(`${op.name}: ${(error as Error).message} ${String((error as Error).cause ?? '')}`);
    }
  }
}
