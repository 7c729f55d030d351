// The payments export as the console downloads it: GET /api/payments with Accept: text/csv (the same
// filters), read as a stream so the page can show how many lines have come, then saved as a file with
// its times on the business's clock (the API writes UTC).
import { dayIn, isoIn } from './dates.js';

export interface ExportProgress {
  bytes: number;
  lines: number;
}

/** Counts the line ends of a chunk of CSV (RFC 4180: CRLF), quoted line breaks included: a progress figure, not a parse. */
export function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (const byte of chunk) if (byte === 10) lines += 1;
  return lines;
}

export async function readWithProgress(response: Response, onProgress: (progress: ExportProgress) => void): Promise<Blob> {
  if (!response.body) return response.blob();
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  const progress: ExportProgress = { bytes: 0, lines: 0 };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    progress.bytes += value.byteLength;
    progress.lines += countLines(value);
    onProgress({ ...progress });
  }
  return new Blob(parts as Uint8Array<ArrayBuffer>[], { type: 'text/csv' });
}

/** The export's timestamp columns (openapi.yaml, listPayments text/csv): UTC instants as the API writes them. */
const TIME_COLUMNS = ['created_at', 'updated_at'];
const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** RFC 4180 records as the raw text of their cells (quotes kept), so a cell not rewritten goes back byte for byte. */
function records(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < csv.length; i += 1) {
    const char = csv[i]!;
    if (quoted) {
      cell += char;
      if (char === '"' && csv[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
      cell += char;
    } else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && csv[i + 1] === '\n') i += 1;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/**
 * The export as a merchant's bookkeeping reads it: its times on the business's clock, with their
 * offset (2026-11-29T05:24:03+08:00, the same instant the API wrote as 2026-11-28T21:24:03Z). The days
 * picked are the API's to keep (`filter[created_on_between]`, the business's days).
 */
export function inBusinessTime(csv: string, timeZone: string): string {
  const [header, ...rows] = records(csv);
  if (!header) return csv;
  const times = TIME_COLUMNS.map((name) => header.indexOf(name)).filter((index) => index >= 0);
  const rewritten = rows.map((row) => row.map((cell, index) => (times.includes(index) && UTC_INSTANT.test(cell) ? isoIn(cell, timeZone) : cell)));
  return `${[header, ...rewritten].map((row) => row.join(',')).join('\r\n')}\r\n`;
}

/** The export's file name, dated by the business's day. */
export function exportFileName(now: Date, timeZone: string): string {
  return `payments-${dayIn(now, timeZone)}.csv`;
}
