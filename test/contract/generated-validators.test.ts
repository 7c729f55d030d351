// A second, independent generator reads openapi.yaml as the server does: @hey-api/openapi-ts (with its
// zod plugin) generates a client into a temporary folder, `tsc --strict` compiles it, and a table of
// inputs goes through both its validators and the real server. A client or gateway built from the
// contract must never pass what the server refuses, nor refuse what it accepts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/child.js';
import { raw, useService } from '../support/service.js';
import { strictProject, typeCheck } from '../support/typescript.js';

interface ZodLike {
  safeParse(value: unknown): { success: boolean };
}

const LINK = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1001' };
const OPEN = { currency: 'MYR', minimum_amount: 5, title: 'Donations' };

/** [what, operation, input, whether the server accepts it] */
const TABLE: [string, 'createPaymentLink' | 'createOpenPaymentLink' | 'listPaymentLinks', Record<string, unknown>, boolean][] = [
  ['a valid payment link', 'createPaymentLink', LINK, true],
  ['currency in lower case', 'createPaymentLink', { ...LINK, currency: 'myr' }, false],
  ['currency that is no ISO 4217 code', 'createPaymentLink', { ...LINK, currency: 'ZZZ' }, false],
  ['currency that is an accounting unit', 'createPaymentLink', { ...LINK, currency: 'XDR' }, false],
  ['amount as text below the minimum', 'createPaymentLink', { ...LINK, amount: '499' }, false],
  ['amount as text at the minimum', 'createPaymentLink', { ...LINK, amount: '500' }, true],
  ['amount as text with leading zeros', 'createPaymentLink', { ...LINK, amount: '000750' }, true],
  ['amount as text above the maximum', 'createPaymentLink', { ...LINK, amount: '3000001' }, false],
  ['amount as text with decimals', 'createPaymentLink', { ...LINK, amount: '10.50' }, false],
  ['amount as a number below the minimum', 'createPaymentLink', { ...LINK, amount: 499 }, false],
  ['amount as a number at the maximum', 'createPaymentLink', { ...LINK, amount: 3000000 }, true],
  ['redirect_url with a javascript: scheme', 'createPaymentLink', { ...LINK, redirect_url: 'javascript:alert(1)' }, false],
  ['redirect_url without a host', 'createPaymentLink', { ...LINK, redirect_url: 'https://' }, false],
  ['redirect_url with a space', 'createPaymentLink', { ...LINK, redirect_url: 'https://merchant.example.com/a b' }, false],
  ['a valid redirect_url', 'createPaymentLink', { ...LINK, redirect_url: 'https://merchant.example.com/thanks?order=1' }, true],
  ['a title with NUL', 'createPaymentLink', { ...LINK, title: 'a\u0000b' }, false],
  ['a title with an emoji', 'createPaymentLink', { ...LINK, title: 'Kopi \u{2615}' }, true],
  ['a valid open link', 'createOpenPaymentLink', OPEN, true],
  ['minimum_amount as text below 5.00', 'createOpenPaymentLink', { ...OPEN, minimum_amount: '4.99' }, false],
  ['minimum_amount in exponent form', 'createOpenPaymentLink', { ...OPEN, minimum_amount: '1e2' }, false],
  ['minimum_amount with three decimals', 'createOpenPaymentLink', { ...OPEN, minimum_amount: '5.001' }, false],
  ['minimum_amount as text at the maximum', 'createOpenPaymentLink', { ...OPEN, minimum_amount: '30000.00' }, true],
  ['minimum_amount as text above the maximum', 'createOpenPaymentLink', { ...OPEN, minimum_amount: '30000.01' }, false],
  ['minimum_amount as a number below 5', 'createOpenPaymentLink', { ...OPEN, minimum_amount: 4.99 }, false],
  ['minimum_amount as a decimal number', 'createOpenPaymentLink', { ...OPEN, minimum_amount: 25.5 }, true],
  ['a valid date range', 'listPaymentLinks', { 'filter[created_at_between]': '2022-05-01,2022-05-31' }, true],
  ['a date range with a time', 'listPaymentLinks', { 'filter[created_at_between]': '2022-05-01T00:00:00Z,2022-05-31' }, false],
  ['three dates', 'listPaymentLinks', { 'filter[created_at_between]': '2022-05-01,2022-05-31,2022-06-30' }, false],
];

/**
 * What JSON Schema cannot say: that the first date of a range comes first, and which days a month
 * has. The DateRange description in openapi.yaml says so; these rows are the whole of the difference.
 */
const BEYOND_JSON_SCHEMA: [string, Record<string, unknown>][] = [
  ['a reversed date range', { 'filter[created_at_between]': '2022-05-31,2022-05-01' }],
  ['an impossible date', { 'filter[created_at_between]': '2022-02-30,2022-03-01' }],
];

let dir: string;
let zod: Record<string, ZodLike>;

beforeAll(async () => {
  // Inside the repository so the generated code finds zod; test-artifacts/ is not committed.
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  dir = mkdtempSync(join(ROOT, 'test-artifacts', 'hey-api-'));
  const cli = join(ROOT, 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js');
  execFileSync(
    process.execPath,
    [cli, '-i', join(ROOT, 'openapi.yaml'), '-o', join(dir, 'client'), '-p', 'zod', '@hey-api/typescript', '--no-log-file', '--silent'],
    { cwd: dir, stdio: 'pipe' },
  );
  zod = (await import(join(dir, 'client', 'zod.gen.ts'))) as Record<string, ZodLike>;
}, 120_000);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});
// After the set-up above, which takes its time before the service is needed.
const t = useService();

async function serverAccepts(operation: string, input: Record<string, unknown>): Promise<boolean> {
  const headers = { authorization: `Bearer ${t.a.key}`, 'content-type': 'application/json' };
  const response =
    operation === 'listPaymentLinks'
      ? await raw(`${t.apiUrl}/payment-links?${new URLSearchParams(input as Record<string, string>).toString()}`, { headers })
      : await raw(`${t.apiUrl}/${operation === 'createPaymentLink' ? 'payment-links' : 'open-payment-links'}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(input),
        });
  expect([200, 422], response.text).toContain(response.status);
  return response.status === 200;
}

function generatedAccepts(operation: string, input: Record<string, unknown>): boolean {
  const schema = {
    createPaymentLink: zod.zCreatePaymentLinkBody,
    createOpenPaymentLink: zod.zCreateOpenPaymentLinkBody,
    listPaymentLinks: zod.zListPaymentLinksQuery,
  }[operation];
  if (!schema) throw new Error(`the generated client has no validator for ${operation}`);
  return schema.safeParse(input).success;
}

describe('@hey-api/openapi-ts (zod) generated from openapi.yaml', () => {
  it('compiles with tsc --strict', () => {
    expect(typeCheck(strictProject(dir, ['client']))).toBe('');
  }, 120_000);

  it.each(TABLE)('%s: the generated validator and the server agree', async (_what, operation, input, accepted) => {
    expect(await serverAccepts(operation, input)).toBe(accepted);
    expect(generatedAccepts(operation, input)).toBe(accepted);
  });

  it.each(BEYOND_JSON_SCHEMA)('%s: well-formed for the schema, refused by the server (documented in DateRange)', async (_what, input) => {
    expect(generatedAccepts('listPaymentLinks', input)).toBe(true);
    expect(await serverAccepts('listPaymentLinks', input)).toBe(false);
  });
});
