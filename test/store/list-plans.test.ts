// Every combination of filters a list operation allows is read through an index, never by a scan of
// the business's rows: each statement the list runs on its table is explained. SQLite gathers no
// statistics (the embedded default never analyzes), so its planner's choice is what production
// gets: the index it searches must hold a filter that narrows the rows (one of the selective ones
// when given, else every equality given) and the page must come out of the index in order, without
// a sort of all matches. PostgreSQL's choice depends on statistics a test database lacks: there the
// plan, with sequential scans priced out, must use an index on the business.
import { describe, expect, it } from 'vitest';
import { PAYMENT_PAID, REFUND_NONE } from '../../server/domain/statuses.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { listAuditEvents, type AuditFilters } from '../../server/store/audit-events.js';
import { businessesWithAvailableFunds, listBalanceTransactions, type BalanceTransactionFilters } from '../../server/store/balance-transactions.js';
import { listEndpointDeliveries, listEvents, type EndpointDeliveryFilters, type EventFilters } from '../../server/store/events.js';
import { compile, type Executor, type Query } from '../../server/store/executor.js';
import { expireDueOpenPaymentLinks, listOpenPaymentLinks, type OpenPaymentLinkFilters } from '../../server/store/open-payment-links.js';
import type { PageRequest } from '../../server/domain/paging.js';
import { expireDuePaymentLinks, listPaymentLinks, type PaymentLinkFilters } from '../../server/store/payment-links.js';
import { listPayments, type PaymentFilters } from '../../server/store/payment-lists.js';
import { listPayouts, type PayoutFilters } from '../../server/store/payouts.js';
import { refundsOfPayments } from '../../server/store/refunds.js';
import { listTokens, type TokenFilters } from '../../server/store/tokens.js';
import { useMigratedDatabase } from '../support/store.js';

const store = useMigratedDatabase('list-plans');
const RANGE = { from: '2026-01-01', to: '2026-01-31', start: '2026-01-01T00:00:00.000000Z', end: '2026-01-31T23:59:59.999999Z' };

/**
 * A filter as a list takes it: its value, the column it is an equality on (none for a date range),
 * whether it narrows the rows, and whether what it matches is few enough to sort (one payout's entries,
 * a business's payouts over some days). A text search (`searched`) is found in the table's search index
 * (store/text-search.ts), whose rows are then read by rowid; its column, if any, is the equality of
 * the rows it finds besides (a payment search's amount).
 */
interface FilterCase<F> {
  value: Partial<F>;
  column?: string;
  selective: boolean;
  bounded?: true;
  searched?: boolean;
}

interface ListCase<F> {
  table: string;
  filters: Record<string, FilterCase<F>>;
  list(db: Executor, businessId: number, filters: F, page: PageRequest): Promise<unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each list takes its own filters
const LISTS: Record<string, ListCase<any>> = {
  payments: {
    table: 'payments',
    filters: {
      status: { value: { status: { statusId: PAYMENT_PAID, refundState: REFUND_NONE } }, column: 'status_id', selective: false },
      method: { value: { method: 'card' }, column: 'method', selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
      paymentLinkId: { value: { paymentLinkId: 'a'.repeat(24) }, column: 'payment_link_id', selective: true },
      openPaymentLinkId: { value: { openPaymentLinkId: 'b'.repeat(24) }, column: 'open_payment_link_id', selective: true },
      tokenizationId: { value: { tokenizationId: 'c'.repeat(24) }, column: 'tokenization_id', selective: true },
      reference: { value: { reference: 'REF-1' }, column: 'reference', selective: true },
      payerEmail: { value: { payerEmail: 'nobody@x.com' }, column: 'payer_email', selective: true },
      cardLast4: { value: { cardLast4: '4242' }, column: 'card_last4', selective: true },
      search: { value: { search: { text: 'aisyah@', amount: 1550n } }, column: 'amount', selective: true, searched: true },
    } satisfies Record<string, FilterCase<PaymentFilters>>,
    list: listPayments,
  },
  payment_links: {
    table: 'payment_links',
    filters: {
      status: { value: { status: 'Active' }, column: 'status', selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
      reference: { value: { reference: 'REF-1' }, column: 'reference', selective: true },
      reference_2: { value: { reference_2: 'REF-2' }, column: 'reference_2', selective: true },
      email: { value: { email: 'nobody@x.com' }, column: 'email', selective: true },
      title: { value: { title: 'surau' }, selective: true, searched: true },
    } satisfies Record<string, FilterCase<PaymentLinkFilters>>,
    list: listPaymentLinks,
  },
  open_payment_links: {
    table: 'open_payment_links',
    filters: {
      active: { value: { active: true }, column: 'status_id', selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
      reference: { value: { reference: 'REF-1' }, column: 'reference', selective: true },
      reference_2: { value: { reference_2: 'REF-2' }, column: 'reference_2', selective: true },
      title: { value: { title: 'surau' }, selective: true, searched: true },
    } satisfies Record<string, FilterCase<OpenPaymentLinkFilters>>,
    list: listOpenPaymentLinks,
  },
  tokens: {
    table: 'tokens',
    filters: {
      status: { value: { status: 'active' }, column: 'status', selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
      email: { value: { email: 'nobody@x.com' }, column: 'email', selective: true },
    } satisfies Record<string, FilterCase<TokenFilters>>,
    list: listTokens,
  },
  events: {
    table: 'webhook_events',
    filters: {
      type: { value: { type: 'payment.created' }, column: 'topic', selective: false },
      deliverySuccess: { value: { deliverySuccess: false }, column: 'outcome', selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
    } satisfies Record<string, FilterCase<EventFilters>>,
    list: listEvents,
  },
  audit_events: {
    table: 'audit_events',
    filters: {
      actorId: { value: { actorId: 'd'.repeat(24) }, column: 'actor_id', selective: true },
      action: { value: { action: 'createPaymentLink' }, column: 'action', selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
    } satisfies Record<string, FilterCase<AuditFilters>>,
    list: listAuditEvents,
  },
  balance_transactions: {
    table: 'balance_transactions',
    filters: {
      type: { value: { type: 'refund' }, column: 'type', selective: false },
      payoutId: { value: { payoutId: 'a'.repeat(24) }, column: 'payout_id', selective: true, bounded: true },
      sourceId: { value: { sourceId: 'b'.repeat(24) }, column: 'source_id', selective: true, bounded: true },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
      availableOnBetween: { value: { availableOnBetween: { from: RANGE.from, to: RANGE.to } }, selective: false },
    } satisfies Record<string, FilterCase<BalanceTransactionFilters>>,
    list: listBalanceTransactions,
  },
  payouts: {
    table: 'payouts',
    filters: {
      status: { value: { status: 'paid' }, column: 'status', selective: false },
      arrivalBetween: { value: { arrivalBetween: { from: RANGE.from, to: RANGE.to } }, selective: false, bounded: true },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
    } satisfies Record<string, FilterCase<PayoutFilters>>,
    list: listPayouts,
  },
  // One endpoint's attempts: the endpoint is a key of the index after the business, as a filter would be.
  endpoint_deliveries: {
    table: 'outbox_attempts',
    filters: {
      outcome: { value: { outcome: 'failed' }, column: 'outcome', selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
    } satisfies Record<string, FilterCase<EndpointDeliveryFilters>>,
    list: (db: Executor, businessId: number, filters: EndpointDeliveryFilters, page: PageRequest) =>
      listEndpointDeliveries(db, businessId, { id: 1, _id: `we_${'f'.repeat(24)}`, url: 'https://hooks.example.com/' }, filters, page),
  },
  // A target filter reads the targets' index; the event's other filters are checked on each event found.
  audit_event_targets: {
    table: 'audit_event_targets',
    filters: {
      targetId: { value: { targetId: 'e'.repeat(24) }, column: 'target_id', selective: true },
      actorId: { value: { actorId: 'd'.repeat(24) }, selective: false },
      action: { value: { action: 'createPaymentLink' }, selective: false },
      createdBetween: { value: { createdBetween: RANGE }, selective: false },
    } satisfies Record<string, FilterCase<AuditFilters>>,
    list: listAuditEvents,
  },
};

/** Every subset of the given names. */
function subsets(names: string[]): string[][] {
  return names.reduce<string[][]>((all, name) => [...all, ...all.map((subset) => [...subset, name])], [[]]);
}

/**
 * An executor that records each statement it is given instead of running it, answering every count
 * with 1 and every list with no rows, so that a list runs each statement it has (its count, then its page).
 */
function recording(db: Executor, statements: Query[]): Executor {
  const executor: Executor = {
    dialect: db.dialect,
    sql: db.sql,
    all: async <Row>(query: Query) => (statements.push(query), [] as Row[]),
    first: async <Row>(query: Query) => (statements.push(query), { count: 1, live: 1 } as Row),
    run: async (query) => (statements.push(query), 0),
    transaction: (work) => work(executor),
  };
  return executor;
}

async function sqlitePlan(sql: string, bindings: readonly unknown[]): Promise<string[]> {
  const rows = await store.db.all<{ detail: string }>({ sql: `explain query plan ${sql}`, bindings });
  return rows.map((row) => row.detail);
}

async function postgresPlan(sql: string, bindings: readonly unknown[]): Promise<string[]> {
  return store.db.transaction(async (tx) => {
    await tx.run({ sql: 'set local enable_seqscan = off', bindings: [] });
    const rows = await tx.all<{ 'QUERY PLAN': string }>({ sql: `explain ${sql}`, bindings });
    return rows.map((row) => row['QUERY PLAN']);
  });
}

/** What is wrong with a statement's plan on `table`, or undefined. */
function sqliteProblem(
  table: string,
  plan: string[],
  required: { anyOf: string[] } | { allOf: string[] },
  ordered: boolean,
  keyed = 'business_id',
  searched = false,
): string | undefined {
  const lines = plan.filter((line) => new RegExp(`\\b(SCAN|SEARCH) ${table}\\b`).test(line));
  if (lines.length === 0) return `does not read ${table}`;
  if (searched && !plan.some((line) => new RegExp(`^SCAN ${table}_search VIRTUAL TABLE INDEX 0:M`).test(line)))
    return `does not read the search index: ${plan.join(' | ')}`;
  // The rows a search found, each read by its rowid: what a search costs is its matches, which are then sorted.
  const byRowid = (line: string) => searched && /USING INTEGER PRIMARY KEY \(rowid=\?\)/.test(line);
  if (lines.some(byRowid)) ordered = false;
  for (const line of lines) {
    if (byRowid(line)) continue;
    if (/^SCAN /.test(line) && !/COVERING INDEX|USING INDEX/.test(line)) return `scans the table: ${line}`;
    const constraint = line.slice(line.lastIndexOf('(') + 1);
    const held = (column: string) => new RegExp(`\\b${column}=`).test(constraint);
    if (!held(keyed)) return `does not seek ${keyed}: ${line}`;
    if ('anyOf' in required && !required.anyOf.some(held)) return `does not seek a selective filter (${required.anyOf.join(', ')}): ${line}`;
    if ('allOf' in required && !required.allOf.every(held)) return `does not seek every filter (${required.allOf.join(', ')}): ${line}`;
  }
  if (ordered && plan.some((line) => /TEMP B-TREE FOR ORDER BY/.test(line))) return `sorts every match: ${plan.join(' | ')}`;
  return undefined;
}

function postgresProblem(table: string, plan: string[], keyed = 'business_id'): string | undefined {
  const text = plan.join('\n');
  if (new RegExp(`Seq Scan on ${table}\\b`).test(text)) return `scans the table:\n${text}`;
  // PostgreSQL may print the key cast to its type, as in `(payment_id)::text = '…'::text`.
  if (!new RegExp(`\\b${keyed}\\)?(::[a-z ]+)? = `).test(text)) return `does not seek ${keyed}:\n${text}`;
  return undefined;
}

describe('every filter combination of a list reads through an index', () => {
  for (const [name, list] of Object.entries(LISTS)) {
    it(`${name}: every combination of ${Object.keys(list.filters).join(', ')}, both orders`, async () => {
      const business = await findOrCreateBusiness(store.db, `Plans ${name}`);
      const problems: string[] = [];
      let explained = 0;
      for (const combination of subsets(Object.keys(list.filters))) {
        const cases = combination.map((filter) => list.filters[filter]!);
        const filters = Object.assign({}, ...cases.map((c) => c.value)) as never;
        const selective = cases.filter((c) => c.selective && c.column !== undefined).map((c) => c.column!);
        const searched = cases.some((c) => c.searched === true);
        const equalities = cases.filter((c) => c.column !== undefined).map((c) => c.column!);
        const required = selective.length > 0 || searched ? { anyOf: selective } : { allOf: equalities };
        const sortable = cases.some((c) => c.bounded);
        for (const direction of ['asc', 'desc'] as const) {
          const statements: Query[] = [];
          await list.list(recording(store.db, statements), business.id, filters, { page: 1, perPage: 15, direction });
          for (const statement of statements) {
            const { sql, bindings } = compile(statement);
            if (!new RegExp(`from [\\x60"]${list.table}[\\x60"]`).test(sql)) continue;
            explained += 1;
            const problem =
              store.db.dialect === 'sqlite'
                ? sqliteProblem(list.table, await sqlitePlan(sql, bindings), required, !sortable && /order by/i.test(sql), 'business_id', searched)
                : postgresProblem(list.table, await postgresPlan(sql, bindings));
            if (problem) problems.push(`[${combination.join(', ') || 'no filter'}] ${direction}: ${problem}\n    ${sql}`);
          }
        }
      }
      expect(explained).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      // Payments' 1,024 combinations explain some 4,000 statements: on a busy machine's PostgreSQL, past the default 30 s.
    }, 120_000);
  }
});

describe('the reads behind a page seek their rows', () => {
  it("a page of events reads its events' entries, and an export batch its payments' refunds, through their ids", async () => {
    const business = await findOrCreateBusiness(store.db, 'Plans entries');
    const statements: Query[] = [];
    // The page finds one event, whose entries are then read.
    const page = (query: Query) => (/webhook_events/.test(compile(query).sql) ? [{ event_id: 'evt_1' }] : []);
    const answering: Executor = { ...recording(store.db, statements), all: async <Row>(query: Query) => (statements.push(query), page(query) as Row[]) };
    // Its entries are none (nothing runs): reading them back fails once their statement is recorded.
    await listEvents(answering, business.id, {}, { page: 1, perPage: 15, direction: 'desc' }).catch(() => undefined);
    await refundsOfPayments(recording(store.db, statements), ['a'.repeat(24)]);
    const checked: Record<string, [string, string]> = { outbox: ['event_id', 'business_id'], refunds: ['payment_id', 'payment_id'] };
    const problems: string[] = [];
    for (const [table, [column, keyed]] of Object.entries(checked)) {
      const statement = statements.map(compile).find(({ sql }) => new RegExp(`from [\\x60"]${table}[\\x60"]`).test(sql));
      expect(statement, table).toBeDefined();
      const { sql, bindings } = statement!;
      const problem =
        store.db.dialect === 'sqlite'
          ? sqliteProblem(table, await sqlitePlan(sql, bindings), { allOf: [column] }, false, keyed)
          : postgresProblem(table, await postgresPlan(sql, bindings), keyed);
      if (problem) problems.push(`${table}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });
});

describe('the expiry sweep seeks its rows', () => {
  it('finds the due links through the expiry index and updates them by id, never walking every live link', async () => {
    const problems: string[] = [];
    for (const [table, status, expire] of [
      ['payment_links', 'status', expireDuePaymentLinks],
      ['open_payment_links', 'state', expireDueOpenPaymentLinks],
    ] as const) {
      const statements: Query[] = [];
      // The first read (the due links) finds one, so the update that follows runs too.
      const answering: Executor = {
        ...recording(store.db, statements),
        all: async <Row>(query: Query) => (statements.push(query), (statements.length === 1 ? [{ _id: 'a'.repeat(24) }] : []) as Row[]),
      };
      await expire(answering, 100);
      const compiled = statements.map(compile).filter(({ sql }) => sql.includes(table));
      expect(
        compiled.some(({ sql }) => /^update/i.test(sql)),
        table,
      ).toBe(true);
      for (const { sql, bindings } of compiled) {
        // An update must seek the link by id; the read of the due links, by its status and expiry.
        const keyed = /^update/i.test(sql) ? '_id' : status;
        const problem =
          store.db.dialect === 'sqlite'
            ? sqliteProblem(table, await sqlitePlan(sql, bindings), { allOf: [] }, false, keyed)
            : postgresProblem(table, await postgresPlan(sql, bindings), keyed);
        if (problem) problems.push(`${table}: ${problem}\n    ${sql}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the settlement sweep seeks its rows', () => {
  it('finds the businesses with unpaid available entries through the index of unpaid entries alone', async () => {
    const statements: Query[] = [];
    await businessesWithAvailableFunds(recording(store.db, statements), '2026-01-31', 50);
    expect(statements).toHaveLength(1);
    const { sql, bindings } = compile(statements[0]!);
    const plan = store.db.dialect === 'sqlite' ? await sqlitePlan(sql, bindings) : await postgresPlan(sql, bindings);
    expect(plan.join('\n')).toMatch(/balance_transactions_unpaid_by_day_index/);
  });
});
