// Payouts: the list, one payout or its itemized report (CSV), and the sandbox's test helpers.
import { Readable } from 'node:stream';
import type { components } from '../../generated/openapi.js';
import { dayNumberOf } from '../domain/business-days.js';
import { formatUnits } from '../domain/money.js';
import type { SomeHandlers } from '../http/operations.js';
import { getPayout, listPayouts, payoutReport, type PayoutRecord, type PayoutReportRow } from '../usecases/merchant/balance.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { failPayout, runSandboxPayouts, type NotOnSandbox } from '../usecases/settlement/payouts.js';
import { ok } from './envelope.js';
import { createdBetween, createdRange, pageOf, pageRequest, pageTooDeep } from './listing.js';
import { inertCell, loadCsvStringify } from './payments-csv.js';

type Payout = components['schemas']['Payout'];

export function presentPayout(record: PayoutRecord): Payout {
  return {
    _id: record._id,
    amount: record.amount,
    currency: record.currency,
    status: record.status,
    arrival_date: record.arrival_date,
    provider: record.provider,
    acquirer_reference: record.acquirer_reference,
    bank_reference: record.bank_reference,
    transaction_count: record.transaction_count,
    reconciliation: { status: record.reconciliation_status, reason: record.reconciliation_reason, checked_at: record.reconciliation_checked_at },
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The itemized report's columns, in order; documented in openapi.yaml (getPayout, text/csv). */
export const PAYOUT_CSV_COLUMNS = [
  'balance_transaction_id',
  'type',
  'created_at',
  'available_on',
  'source_type',
  'source_id',
  'payment_id',
  'reference',
  'payer_name',
  'payer_email',
  'method',
  'currency',
  'gross',
  'fee',
  'net',
  // The zone `available_on` is a day of (the business's), on every line: a spreadsheet may sort or cut them.
  'time_zone',
] as const;

const units = (sen: number) => formatUnits(sen).replace(/,/g, '');

async function* reportLines(rows: AsyncIterable<PayoutReportRow>, payout: PayoutRecord, timeZone: string): AsyncGenerator<(string | null)[]> {
  const totals = { gross: 0, fee: 0, net: 0 };
  for await (const row of rows) {
    // The payout's own entry is the sum leaving the balance, not an item of it.
    if (row.type === 'payout') continue;
    totals.gross += row.amount;
    totals.fee += row.fee;
    totals.net += row.net;
    yield [
      row._id,
      row.type,
      row.created_at,
      row.available_on,
      row.source_type,
      row.source_id,
      row.payment_id,
      inertCell(row.reference),
      inertCell(row.payer_name),
      inertCell(row.payer_email),
      row.method,
      row.currency,
      units(row.amount),
      units(row.fee),
      units(row.net),
      timeZone,
    ];
  }
  yield [
    'total',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    payout.currency,
    units(totals.gross),
    units(totals.fee),
    units(totals.net),
    timeZone,
  ];
}

function payoutCsv(report: { timeZone: string; rows: AsyncIterable<PayoutReportRow> }, payout: PayoutRecord): NodeJS.ReadableStream {
  const source = Readable.from(reportLines(report.rows, payout, report.timeZone));
  const { stringify } = loadCsvStringify();
  const csv = stringify({ header: true, columns: [...PAYOUT_CSV_COLUMNS], record_delimiter: 'windows' });
  source.on('error', (error) => csv.destroy(error));
  csv.on('close', () => source.destroy());
  return source.pipe(csv);
}

const NOT_FOUND = { message: 'Payout not found.' };

function notOnSandbox(refused: NotOnSandbox) {
  return {
    message: `The payout test helpers work only for a business on the sandbox acquirer; this business takes payments through ${refused.acquirer}, whose own payouts are synced.`,
  };
}

export const payoutHandlers = {
  listPayouts: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const arrival = createdBetween(query['filter[arrival_date_between]']);
      const result = await listPayouts(
        ctx,
        business.id,
        {
          status: query['filter[status]'],
          arrivalBetween: arrival && { from: arrival.from, to: arrival.to },
          createdBetween: await createdRange(ctx, business.id, query),
        },
        page,
      );
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/payouts`, rawQuery, page, result, presentPayout)));
    },
  },
  getPayout: {
    async handle({ path, accepts, business }, ctx, respond) {
      const payout = await getPayout(ctx, business.id, path.payout_id);
      if (!payout) return respond.with404(NOT_FOUND);
      if (accepts('application/json', 'text/csv') === 'text/csv')
        return respond.with200(payoutCsv(await payoutReport(ctx, payout), payout), {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="payout-${payout._id}.csv"`,
        });
      return respond.with200(ok(presentPayout(payout)));
    },
  },
  runTestPayouts: {
    async handle({ body, business }, ctx, respond) {
      // The format takes any YYYY-MM-DD; the calendar counts business days from year 1 to 9999.
      if (dayNumberOf(body.as_of) === undefined)
        return respond.with422({ message: 'The given data was invalid.', errors: { as_of: ['The as of is not a valid date.'] } });
      const outcome = await runSandboxPayouts(ctx, business.id, body.as_of);
      if (outcome.result === 'not_sandbox') return respond.with403(notOnSandbox(outcome));
      return respond.with200(ok(outcome.payouts.map(presentPayout)));
    },
  },
  failTestPayout: {
    async handle({ path, business }, ctx, respond) {
      const outcome = await failPayout(ctx, business.id, path.payout_id);
      if (outcome.result === 'not_sandbox') return respond.with403(notOnSandbox(outcome));
      if (outcome.result === 'not_found') return respond.with404(NOT_FOUND);
      if (outcome.result === 'conflict') return respond.with409({ message: outcome.message });
      return respond.with200(ok(presentPayout(outcome.payout)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
