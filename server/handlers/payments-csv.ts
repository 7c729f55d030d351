// The reconciliation export: every matching payment as a line, each followed by its refunds, as CSV
// (RFC 4180, through csv-stringify) streamed as it is read, so its length costs no memory.
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { formatUnits } from '../domain/money.js';
import { PAYMENT_PAID } from '../domain/statuses.js';
import type { ExportedPayment } from '../usecases/merchant/payments.js';
import { paymentStatus } from './payment-status.js';

/** The columns, in order; documented in openapi.yaml (listPayments, text/csv). */
export const CSV_COLUMNS = [
  'line',
  'id',
  'payment_id',
  'created_at',
  'updated_at',
  'status',
  'payment_status',
  'method',
  'provider',
  'provider_reference',
  'payment_link_id',
  'open_payment_link_id',
  'tokenization_id',
  'reference',
  'description',
  'payer_name',
  'payer_email',
  'currency',
  'amount',
  'refunded',
  'net',
  'card_brand',
  'card_last4',
  'failure_code',
  'failure_message',
  // Added last, so that a reader of the earlier columns by position reads the same.
  'reason',
  // The acquirer's fee and what the payment adds to the balance (`net` above is older and means
  // amount less refunded), and its ledger entry.
  'fee',
  'net_after_fee',
  'balance_transaction_id',
] as const;

type Line = Partial<Record<(typeof CSV_COLUMNS)[number], string | number | null>>;

const units = (cents: number) => formatUnits(cents).replace(/,/g, '');

// Where a spreadsheet may cut a cell when it reads the file: the comma, and whatever a user picks in
// its import dialog (semicolon, pipe, tab) or it guesses from the locale, and line ends.
const SEPARATOR = /([,;|\t\r\n])/;
// What may stand before a formula and be dropped on import: spaces, and quotes that relaxed parsing eats.
const FILLER = /^[\s"]*/;

/** = + - @ % | as they may start a formula, also in their full-width and small forms (＝, ﹢...). */
const startsFormula = (char: string) => /^[=+\-@%|]$/.test(char.normalize('NFKC'));

/**
 * Text a payer or merchant typed (a name, say), made inert for a spreadsheet: a spreadsheet runs a cell
 * that starts with = + - @ (OWASP's list, with % and |, and tab or line ends before them) as a formula.
 * A cell may start wherever the file is cut: after any separator inside the text (`Ann;=1+2` read with
 * `;` as the separator is a cell `=1+2`), so every piece of the text that could become a cell and
 * starts like a formula gets an apostrophe in front, which spreadsheets show as text; the rest is kept.
 */
export function inertCell(value: string | null): string | null {
  if (value === null) return null;
  const pieces = value.split(SEPARATOR);
  let changed = false;
  for (let i = 0; i < pieces.length; i += 2) {
    const piece = pieces[i]!;
    const first = piece.slice(FILLER.exec(piece)![0].length).codePointAt(0);
    // A text that starts with a separator (a tab, a line end, a pipe) is a cell of its own on some reads.
    const leadingSeparator = i === 0 && piece === '' && pieces.length > 1 && /[|\t\r\n]/.test(pieces[1]!);
    if ((first !== undefined && startsFormula(String.fromCodePoint(first))) || leadingSeparator) {
      pieces[i] = `'${piece}`;
      changed = true;
    }
  }
  return changed ? pieces.join('') : value;
}

function* linesOf({ payment, refunds }: ExportedPayment): Generator<Line> {
  const paid = payment.status_id === PAYMENT_PAID;
  yield {
    line: 'payment',
    id: payment._id,
    payment_id: payment._id,
    created_at: payment.created_at,
    updated_at: payment.updated_at,
    status: paymentStatus(payment),
    payment_status: payment.status_id,
    method: payment.method,
    provider: payment.provider,
    provider_reference: payment.provider_reference,
    payment_link_id: payment.payment_link_id,
    open_payment_link_id: payment.open_payment_link_id,
    tokenization_id: payment.tokenization_id,
    reference: inertCell(payment.reference),
    description: inertCell(payment.description),
    payer_name: inertCell(payment.payer_name),
    payer_email: inertCell(payment.payer_email),
    currency: payment.currency,
    amount: units(payment.amount),
    refunded: units(payment.amount_refunded),
    net: units(paid ? payment.amount - payment.amount_refunded : 0),
    card_brand: payment.card_brand,
    card_last4: payment.card_last4,
    failure_code: payment.failure_code,
    failure_message: inertCell(payment.failure_message),
    fee: payment.fee === null ? null : units(payment.fee),
    net_after_fee: payment.net === null ? null : units(payment.net),
    balance_transaction_id: payment.balance_transaction_id,
  };
  for (const refund of refunds) {
    yield {
      line: 'refund',
      id: refund._id,
      payment_id: payment._id,
      created_at: refund.created_at,
      updated_at: refund.updated_at,
      status: refund.status,
      provider: payment.provider,
      provider_reference: refund.provider_reference,
      payment_link_id: payment.payment_link_id,
      open_payment_link_id: payment.open_payment_link_id,
      tokenization_id: payment.tokenization_id,
      // The payment's, so that a refund is found by the reference its payment is booked under.
      reference: inertCell(payment.reference),
      currency: refund.currency,
      amount: units(refund.amount),
      failure_code: refund.failure_code,
      failure_message: inertCell(refund.failure_message),
      reason: inertCell(refund.reason),
    };
  }
}

/**
 * Each line as an array in the columns' order: csv-stringify reads an object's fields by path (a
 * lookup that parses the column's name) for every cell, an array's by index.
 */
async function* allLines(payments: AsyncIterable<ExportedPayment>): AsyncGenerator<Line[(typeof CSV_COLUMNS)[number]][]> {
  for await (const exported of payments) for (const line of linesOf(exported)) yield CSV_COLUMNS.map((column) => line[column]);
}

/** csv-stringify, loaded by the first export rather than at start-up, which has no use for it (the warm-up loads it once listening). */
export const loadCsvStringify = () => createRequire(import.meta.url)('csv-stringify') as typeof import('csv-stringify');

/** The CSV, header first; pulled line by line as the client reads it (backpressure through pipe). */
export function paymentsCsv(payments: AsyncIterable<ExportedPayment>): NodeJS.ReadableStream {
  const source = Readable.from(allLines(payments));
  const { stringify } = loadCsvStringify();
  const csv = stringify({ header: true, columns: [...CSV_COLUMNS], record_delimiter: 'windows', cast: { number: String } });
  source.on('error', (error) => csv.destroy(error));
  // A reader that goes away destroys what it read from: the export behind it stops too (and gives
  // its business's turn back) instead of waiting for a read that never comes.
  csv.on('close', () => source.destroy());
  return source.pipe(csv);
}
