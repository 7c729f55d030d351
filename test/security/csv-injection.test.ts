// The reconciliation CSV carries text payers and merchants typed (names, references, descriptions),
// which a spreadsheet must never run as a formula. A spreadsheet may cut the file at more than the
// comma: a semicolon (the separator of many locales), a tab or a pipe picked in the import dialog, and
// line ends inside a quoted cell; and it may drop the spaces and quotes around what it cut. So the
// export is read here as each of those would read it, and no cell may start with = + - @ % | (or
// their full-width forms) once spaces and quotes are dropped, while each text stays recognisable.
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECLINED_CARD, submitPage } from '../support/payer.js';
import { raw, useService } from '../support/service.js';

const PAYLOADS = [
  'Ann;=1+2;',
  'Ann,=1+2',
  'Ann;-2+3',
  'Ann; +1',
  'Ann;@SUM(1)',
  'Ann;%1',
  "Ann|=cmd|' /C calc'!A0",
  'Ann;"=1+2"',
  'Ann; "@x"',
  '＝1+2',
  'Ann;＋1;－1;＠x',
  '=HYPERLINK("http://evil.example")',
  'Ann\n=1+2',
  'Ann\r\n+1',
  'Ann\t=1+2',
  'Ann;\t=1+2',
  'Ann\n\t -1',
];

/** Per payment link id, the text its payment was made with. */
const sent = new Map<string, string>();

const t = useService();
beforeAll(async () => {
  for (const text of PAYLOADS) {
    // The title is what a payment's description shows.
    const link = await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: text, reference: text } });
    expect(link.response.status, text).toBe(200);
    // The pay page refuses control characters in a name: there they become separators the page allows.
    const name = text.replace(/[\t\r\n]/g, ';');
    expect((await submitPage(t.url, link.data!.data.payment_url, { name, ...DECLINED_CARD })).status, text).toBe(402);
    sent.set(link.data!.data._id, text);
  }
}, 120_000);

/** A cell a spreadsheet may run: after the spaces and quotes it may drop, a formula's first character. */
function runnable(cell: string): boolean {
  const first = cell.replace(/^[\s"]+/u, '').codePointAt(0);
  return first !== undefined && '=+-@%|'.includes(String.fromCodePoint(first).normalize('NFKC'));
}

const apostrophesOut = (text: string) => text.replace(/'/g, '');

describe('the CSV export, read as spreadsheets read it', () => {
  it('keeps every text recognisable, read as the RFC 4180 file it is', async () => {
    const { text } = await raw(`${t.apiUrl}/payments`, { key: t.a.key, headers: { accept: 'text/csv' } });
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(PAYLOADS.length);
    for (const row of rows) {
      const typed = sent.get(row.payment_link_id!)!;
      // The API trims what it stores, as Laravel does.
      for (const column of ['reference', 'description'] as const) {
        expect(apostrophesOut(row[column]!), column).toBe(apostrophesOut(typed.trim()));
        expect(runnable(row[column]!), `${column} ${JSON.stringify(row[column])}`).toBe(false);
      }
      expect(apostrophesOut(row.payer_name!)).toBe(apostrophesOut(typed.replace(/[\t\r\n]/g, ';').trim()));
    }
  });

  it.each([
    ['a comma', ','],
    ['a semicolon', ';'],
    ['a tab', '\t'],
    ['a pipe', '|'],
  ])('split on %s, with relaxed quoting: no cell starts a formula', async (_name, delimiter) => {
    const { text } = await raw(`${t.apiUrl}/payments`, { key: t.a.key, headers: { accept: 'text/csv' } });
    const records = parse(text, { delimiter, relax_quotes: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
    const cells = records.flat();
    expect(cells.length).toBeGreaterThan(PAYLOADS.length);
    expect(cells.filter(runnable)).toEqual([]);
    // And line by line, as a reader that cuts at every line end whatever the quotes say.
    expect(text.split(/\r\n|\r|\n/).filter(runnable)).toEqual([]);
  });
});
