// Property-based tests of a link's life against a model: random sequences of pause, resume, PUT, the
// expiry passing (expires_at moved into the past, as time would), the sweep, and a payer paying through
// a form opened while the link was new. After every step the answer (status, state, 409 message), the
// link as read and its payment page must be the model's; at the end the link has been announced
// (payment_link.expired) exactly as often as the model says. Both kinds of link: a payment link
// (status Active/Paused/Expired/Paid) and an open link (state active/paused/expired/exhausted, with
// max_payments). The worker is off: announcements stay in the outbox to be counted.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueLinks } from '../../server/usecases/merchant/expiry-sweep.js';
import { GOOD_CARD, Payer, type OpenedForm } from '../support/payer.js';
import { useService } from '../support/service.js';
import { SEED, holds, requestCount, send, type Caller, type Reply } from './harness.js';

let caller: Caller;

const t = useService({ outbox: { worker: false }, expirySweepMs: 3_600_000, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
beforeAll(async () => {
  caller = { apiUrl: t.apiUrl, key: t.a.key };
  // An endpoint, so that expiries are written to the outbox (nothing is sent: the worker is off).
  expect((await send(caller, 'POST', '/webhook-endpoints', JSON.stringify({ url: 'https://merchant.example.com/hooks' }))).status).toBe(200);
}, 60_000);

afterAll(async () => {
  console.log(`property: ${requestCount()} requests generated, seed ${SEED} (link states; replay with PROPERTY_SEED=${SEED})`);
});

type Step =
  | { kind: 'pause' | 'resume' | 'lapse' | 'sweep' | 'pay' }
  /** `max`: an open link's max_payments (null: no limit). */
  | { kind: 'put'; expires: 'later' | 'never'; max: number | null };

const steps = (maxes: fc.Arbitrary<number | null>): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      fc.constantFrom<Step>({ kind: 'pause' }, { kind: 'resume' }, { kind: 'lapse' }, { kind: 'sweep' }, { kind: 'pay' }),
      fc.record({ kind: fc.constant('put' as const), expires: fc.constantFrom('later' as const, 'never' as const), max: maxes }),
    ),
    { minLength: 1, maxLength: 12 },
  );

const later = () => new Date(Date.now() + 3_600_000).toISOString();
const sweep = () => expireDueLinks(t.service.context);
const announcements = async (id: string) =>
  ((await t.sql('outbox').where({ topic: 'payment_link.expired' }).select('payload')) as { payload: string }[]).filter((row) => row.payload.includes(id))
    .length;
/** The expiry passes: what waiting would do, without the wait. */
const lapse = async (table: string, id: string) => {
  await t
    .sql(table)
    .where({ _id: id })
    .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
};
const dataOf = (reply: Reply) => (reply.body as { data: Record<string, unknown> }).data;
const messageOf = (reply: Reply) => (reply.body as { message: string }).message;

/** Submits the form opened when the link was new, as a new attempt each time. */
async function payThrough(payer: Payer, form: OpenedForm, n: number, fields: Record<string, string>): Promise<number> {
  const attemptId = `${form.attemptId.slice(0, -6)}${String(n).padStart(6, '0')}`;
  return (await payer.submit({ ...form, attemptId }, fields)).status;
}

describe('a payment link', () => {
  type Status = 'Active' | 'Paused' | 'Expired' | 'Paid';
  const PAID = 'The payment link has already been paid.';
  const EXPIRED = 'The payment link has expired; give it a later expires_at with PUT first.';

  it('answers every pause, resume, PUT, expiry, sweep and payment as the model does', async () => {
    await holds(
      'payment link states',
      fc.record({ expires: fc.constantFrom('later' as const, 'never' as const), steps: steps(fc.constant(null)) }),
      async ({ expires, steps: plan }) => {
        const body = (expiresAt: string | null) =>
          JSON.stringify({ email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice', expires_at: expiresAt });
        const created = await send(caller, 'POST', '/payment-links', body(expires === 'later' ? later() : null));
        expect(created.status, created.text).toBe(200);
        const id = String(dataOf(created)._id);
        const url = new URL(String(dataOf(created).payment_url));
        const payer = new Payer(t.url);
        const form = await payer.open(url.pathname + url.search);

        // The model: the stored status, and whether expires_at has passed (a stored Active then reads Expired).
        let stored: Status = 'Active';
        let lapsed = false;
        let announced = 0;
        const shown = (): Status => (stored === 'Active' && lapsed ? 'Expired' : stored);

        for (const [n, step] of plan.entries()) {
          const context = `step ${n} ${JSON.stringify(step)} of ${JSON.stringify(plan)}`;
          if (step.kind === 'pause' || step.kind === 'resume') {
            const reply = await send(caller, 'POST', `/payment-links/${id}/${step.kind}`);
            const was = shown();
            const refusal =
              was === 'Paid' ? PAID : step.kind === 'pause' ? (was === 'Expired' ? EXPIRED : undefined) : was === 'Expired' || lapsed ? EXPIRED : undefined;
            if (refusal) {
              expect(reply.status, context).toBe(409);
              expect(messageOf(reply), context).toBe(refusal);
            } else {
              expect(reply.status, `${context}: ${reply.text}`).toBe(200);
              stored = step.kind === 'pause' ? 'Paused' : 'Active';
              expect(dataOf(reply).status, context).toBe(stored);
            }
          } else if (step.kind === 'put') {
            const reply = await send(caller, 'PUT', `/payment-links/${id}`, body(step.expires === 'later' ? later() : null));
            if (stored === 'Paid') {
              expect(reply.status, context).toBe(409);
              expect(messageOf(reply), context).toBe(PAID);
            } else {
              expect(reply.status, `${context}: ${reply.text}`).toBe(200);
              lapsed = false;
              if (stored === 'Expired') stored = 'Active';
              expect(dataOf(reply).status, context).toBe(stored);
            }
          } else if (step.kind === 'lapse') {
            await lapse('payment_links', id);
            lapsed = true;
          } else if (step.kind === 'sweep') {
            await sweep();
            if (stored === 'Active' && lapsed) {
              stored = 'Expired';
              announced += 1;
            }
          } else {
            const status = await payThrough(payer, form, n, { name: 'Payer', ...GOOD_CARD });
            const was = shown();
            expect(status, context).toBe(was === 'Active' ? 303 : was === 'Paid' ? 409 : 410);
            if (was === 'Active') stored = 'Paid';
          }
          const read = await send(caller, 'GET', `/payment-links/${id}`);
          expect(dataOf(read), context).toMatchObject({ status: shown(), paid: stored === 'Paid' });
          const page = await new Payer(t.url).get(url.pathname + url.search);
          expect(page.status, context).toBe(shown() === 'Active' ? 200 : shown() === 'Paid' ? 409 : 410);
        }
        expect(await announcements(id), JSON.stringify(plan)).toBe(announced);
        const paid = await t.sql('payments').where({ payment_link_id: id, status_id: 1 });
        expect(paid.length).toBe(stored === 'Paid' ? 1 : 0);
      },
      40,
    );
  });
});

describe('an open link', () => {
  type State = 'active' | 'paused' | 'expired' | 'exhausted';
  const MESSAGES = {
    expired: 'The open payment link has expired; give it a later expires_at with PUT first.',
    exhausted: 'The open payment link has taken its max_payments payments; raise max_payments with PUT first.',
  };
  const maxes = fc.option(fc.integer({ min: 1, max: 3 }), { nil: null, freq: 3 });

  it('answers every pause, resume, PUT, expiry, sweep and payment as the model does, max_payments included', async () => {
    await holds(
      'open link states',
      fc.record({ expires: fc.constantFrom('later' as const, 'never' as const), max: maxes, steps: steps(maxes) }),
      async ({ expires, max: firstMax, steps: plan }) => {
        const body = (expiresAt: string | null, maxPayments: number | null) =>
          JSON.stringify({ currency: 'MYR', minimum_amount: '5.00', title: 'Donations', expires_at: expiresAt, max_payments: maxPayments });
        const created = await send(caller, 'POST', '/open-payment-links', body(expires === 'later' ? later() : null, firstMax));
        expect(created.status, created.text).toBe(200);
        const id = String(dataOf(created)._id);
        const url = new URL(String(dataOf(created).payment_url));
        const payer = new Payer(t.url);
        const form = await payer.open(url.pathname + url.search);

        let stored: State = 'active';
        let lapsed = false;
        let max = firstMax;
        let count = 0;
        let announced = 0;
        const shown = (): State => (stored === 'active' && lapsed ? 'expired' : stored);
        const full = () => max !== null && count >= max;

        for (const [n, step] of plan.entries()) {
          const context = `step ${n} ${JSON.stringify(step)} of ${JSON.stringify({ firstMax, plan })}`;
          if (step.kind === 'pause' || step.kind === 'resume') {
            const reply = await send(caller, 'POST', `/open-payment-links/${id}/${step.kind}`);
            const was = shown();
            let refusal: keyof typeof MESSAGES | undefined;
            if (was === 'expired' || was === 'exhausted') refusal = was;
            else if (step.kind === 'resume' && was === 'paused') refusal = lapsed ? 'expired' : full() ? 'exhausted' : undefined;
            if (refusal) {
              expect(reply.status, `${context}: ${reply.text}`).toBe(409);
              expect(messageOf(reply), context).toBe(MESSAGES[refusal]);
            } else {
              expect(reply.status, `${context}: ${reply.text}`).toBe(200);
              stored = step.kind === 'pause' ? 'paused' : 'active';
              expect(dataOf(reply).state, context).toBe(stored);
            }
          } else if (step.kind === 'put') {
            const reply = await send(caller, 'PUT', `/open-payment-links/${id}`, body(step.expires === 'later' ? later() : null, step.max));
            expect(reply.status, `${context}: ${reply.text}`).toBe(200);
            lapsed = false;
            max = step.max;
            if (stored !== 'paused') stored = full() ? 'exhausted' : 'active';
            expect(dataOf(reply).state, context).toBe(stored);
          } else if (step.kind === 'lapse') {
            await lapse('open_payment_links', id);
            lapsed = true;
          } else if (step.kind === 'sweep') {
            await sweep();
            if (stored === 'active' && lapsed) {
              stored = 'expired';
              announced += 1;
            }
          } else {
            const status = await payThrough(payer, form, n, { amount: '10.00', name: 'Payer', email: 'payer@example.com', ...GOOD_CARD });
            const was = shown();
            expect(status, context).toBe(was === 'active' ? 303 : 410);
            if (was === 'active') {
              count += 1;
              if (full()) stored = 'exhausted';
            }
          }
          const read = dataOf(await send(caller, 'GET', `/open-payment-links/${id}`));
          const state = shown();
          expect(read, context).toMatchObject({
            state,
            status_id: state === 'active' ? 1 : 2,
            status: state === 'active',
            payments_count: count,
            max_payments: max,
          });
          const page = await new Payer(t.url).get(url.pathname + url.search);
          expect(page.status, context).toBe(state === 'active' ? 200 : 410);
        }
        expect(await announcements(id), JSON.stringify(plan)).toBe(announced);
        const paid = await t.sql('payments').where({ open_payment_link_id: id, status_id: 1 });
        expect(paid.length).toBe(count);
      },
      40,
    );
  });
});

it('the plans reach every step and every state', () => {
  const plans = fc.sample(steps(fc.constant(null)), { seed: SEED, numRuns: 40 }).flat();
  expect(new Set(plans.map((step) => step.kind))).toEqual(new Set(['pause', 'resume', 'put', 'lapse', 'sweep', 'pay']));
});
