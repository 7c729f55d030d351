// For a business on Stripe, card numbers are typed on Stripe's page only: after payers pay links and
// save cards there with test cards, no stored row of any table and no log line of the service holds
// the number (nor its digits with spaces or dashes), only the brand and last four Stripe reports.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { Payer } from '../support/payer.js';
import { openReturn, payLinkOnStripe, payOnStripe, useStripeService } from '../support/stripe.js';

const PANS = ['4242424242424242', '5555555555554444', '4000000000000341'];
let logs = '';
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logs += chunk.toString('utf8');
    done();
  },
});
const s = useStripeService({ logger: createLogger({ level: 'trace', destination: capture }) });

/** Every row of every table of the service's database, as text. */
async function everyStoredRow(): Promise<string> {
  const sqlite = s.t.databaseUrl.startsWith('sqlite');
  const tables = sqlite
    ? ((await s.t.sql.raw("select name from sqlite_master where type = 'table'")) as { name: string }[]).map((row) => row.name)
    : ((await s.t.sql.raw('select tablename as name from pg_tables where schemaname = current_schema()')) as { rows: { name: string }[] }).rows.map(
        (row) => row.name,
      );
  const dumps: string[] = [];
  for (const table of tables) dumps.push(JSON.stringify(await s.t.sql(table).select('*')));
  return dumps.join('\n');
}

function variantsOf(pan: string): string[] {
  const groups = pan.match(/\d{4}/g)!;
  return [pan, groups.join(' '), groups.join('-')];
}

describe('card data with Stripe', () => {
  it('never reaches the service: not in any stored row, not in any log line', async () => {
    for (const [i, pan] of PANS.slice(0, 2).entries()) {
      const link = (await s.t.a.client.POST('/payment-links', { body: { email: 'pan@example.com', currency: 'MYR', amount: 1_000 + i, title: 'PAN check' } }))
        .data!.data;
      const { returnUrl } = await payLinkOnStripe(
        s.t.url,
        new URL(link.payment_url).pathname + new URL(link.payment_url).search,
        { name: 'Pan' },
        { card: pan },
      );
      expect((await openReturn(returnUrl!)).status).toBe(303);
    }
    const token = (await s.t.a.client.POST('/tokenizations/create-token', { body: { email: 'pan@example.com', title: 'Plan', description: 'Plan' } })).data!
      .data;
    const url = new URL(token.activation_url);
    const payer = new Payer(url.origin);
    const started = await payer.submit(await payer.open(url.pathname), {});
    await openReturn((await payOnStripe(started.location!, { card: PANS[2]! })).location!);
    await s.t.a.client.POST('/tokenizations/{token_id}/charges', { params: { path: { token_id: token._id } }, body: { amount: 1_000, currency: 'MYR' } });
    await s.standin.idle();

    const stored = await everyStoredRow();
    const last4s = PANS.map((pan) => pan.slice(-4));
    // The journeys above did store what Stripe reports of the cards: the check looks where it should.
    for (const last4 of last4s) expect(stored).toContain(`"${last4}"`);
    expect(logs.length).toBeGreaterThan(0);
    for (const pan of PANS) {
      for (const variant of variantsOf(pan)) {
        expect(stored.includes(variant), `a stored row holds ${variant}`).toBe(false);
        expect(logs.includes(variant), `a log line holds ${variant}`).toBe(false);
      }
    }
  });
});
