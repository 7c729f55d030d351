import type { Knex } from 'knex';
import { isoMicros } from '../../domain/time.js';
import { offsetSpans } from '../../domain/local-days.js';
import { COLLECTION_COUNTS, OPEN_LINK_PAYMENT_COUNTS, PAYMENT_COUNTS } from '../counters/declaration.js';
import { addCounters, dialectOf, withdrawCounters } from '../counters/triggers.js';

// The collections report (`GET /api/reports/collections`) by the business's days, from counters: each payment keeps the
// day it was made on in its business's time zone (`local_day`, set by the store when the payment is
// recorded), and COLLECTION_COUNTS counts payments by that day, currency, state and method, with the
// sums of their amounts and refunds. The payments there are get their day in their business's zone
// as it is now, from the zone's offsets over their time (the platform's time zone data, as the store
// uses, on both databases: SQLite has none of its own), before the counter counts them. The payments'
// trigger is made again with the new counter beside the two it kept; their counts stay as they are.
const KEPT = [PAYMENT_COUNTS, OPEN_LINK_PAYMENT_COUNTS];

interface Span {
  business_id: number | string;
  time_zone: string | null;
  first_at: string | number | null;
  last_at: string | number | null;
}

async function setLocalDays(knex: Knex): Promise<void> {
  const pg = dialectOf(knex) === 'postgres';
  // Epoch milliseconds on PostgreSQL (whatever its driver makes of a timestamptz); ISO text on SQLite.
  const instant = (aggregate: string, name: string) =>
    knex.raw(pg ? `floor(extract(epoch from ${aggregate}(p.created_at)) * 1000) as ${name}` : `${aggregate}(p.created_at) as ${name}`);
  const ranges = await knex('payments as p')
    .join('businesses as b', 'b.id', 'p.business_id')
    .groupBy('p.business_id', 'b.time_zone')
    .select('p.business_id', 'b.time_zone', instant('min', 'first_at'), instant('max', 'last_at'));
  for (const range of ranges as Span[]) {
    if (range.first_at === null || range.last_at === null) continue;
    const ms = (value: string | number) => (pg ? Number(value) : Date.parse(String(value)));
    const spans = offsetSpans(range.time_zone, ms(range.first_at), ms(range.last_at) + 1);
    for (const [i, span] of spans.entries()) {
      const query = knex('payments').where('business_id', Number(range.business_id));
      // The first and last spans reach past the business's first and last payments: no bound there.
      if (i > 0) query.where('created_at', '>=', isoMicros(new Date(span.from)));
      if (i < spans.length - 1) query.where('created_at', '<', isoMicros(new Date(span.to)));
      const day = pg
        ? knex.raw(`((created_at at time zone 'UTC') + make_interval(mins => ?))::date`, [span.offsetMinutes])
        : knex.raw('date(created_at, ?)', [`${span.offsetMinutes >= 0 ? '+' : ''}${span.offsetMinutes} minutes`]);
      await query.update({ local_day: day });
    }
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.date('local_day').nullable();
  });
  await setLocalDays(knex);
  await addCounters(knex, [COLLECTION_COUNTS], KEPT);
}

export async function down(knex: Knex): Promise<void> {
  await withdrawCounters(knex, [COLLECTION_COUNTS], KEPT);
  // A plain DROP COLUMN on both: Knex would copy the whole table on SQLite (and lose its triggers).
  await knex.raw('alter table payments drop column local_day');
}
