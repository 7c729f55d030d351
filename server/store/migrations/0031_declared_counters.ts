import type { Knex } from 'knex';
import { COUNTERS } from '../counters/declaration.js';
import { dialectOf, installCounters, removeCounters } from '../counters/triggers.js';
import * as recordCounts from './0005_record_counts.js';
import * as dailyCounts from './0007_daily_counts.js';
import * as paymentCounts from './0013_payment_counts.js';
import * as periodCounts from './0022_period_counts.js';
import * as openLinkPaymentCounts from './0023_open_link_payment_counts.js';

// The counters declared once (store/counters/) replace those of 0005, 0007, 0013, 0022 and 0023: a
// row was counted per day by one trigger and per month and year by triggers on the daily rows (a
// payment on an open link wrote seven counter rows, a change of its state twelve), its state was an
// encoded string (`<link>:1:0:card`), and every payment of a business updated the same rows. Their
// triggers and tables go; the new tables are counted from the rows themselves, which the old triggers
// counted too, so the totals are the same.
const OLD_TABLES = ['daily_counts', 'monthly_counts', 'yearly_counts', 'record_counts'];
/** Trigger names per counted table, as 0005, 0007 and 0013/0023 made them (0022's go with daily_counts). */
const OLD_TRIGGERS: Record<string, string[]> = {
  payment_links: ['count', 'daily'],
  open_payment_links: ['count', 'daily'],
  payments: ['daily'],
};
const SQLITE_SUFFIXES: Record<string, string[]> = {
  count: ['insert', 'delete_soft', 'restore', 'delete'],
  daily: ['insert', 'update_old', 'update_new', 'delete'],
};

export async function up(knex: Knex): Promise<void> {
  const pg = dialectOf(knex) === 'postgres';
  for (const [table, kinds] of Object.entries(OLD_TRIGGERS)) {
    for (const kind of kinds) {
      const name = `${table}_${kind}`;
      if (pg) await knex.raw(`drop trigger if exists ${name} on ${table}`);
      else for (const suffix of SQLITE_SUFFIXES[kind]!) await knex.raw(`drop trigger if exists ${name}_${suffix}`);
      if (pg) await knex.raw(`drop function if exists ${name}()`);
    }
  }
  for (const table of OLD_TABLES) await knex.schema.dropTableIfExists(table);
  if (pg) await knex.raw('drop function if exists daily_counts_periods()');
  await installCounters(knex, COUNTERS);
}

export async function down(knex: Knex): Promise<void> {
  await removeCounters(knex, COUNTERS);
  // The old migrations made their tables and counts from the rows too, in this order.
  for (const migration of [recordCounts, dailyCounts, paymentCounts, periodCounts, openLinkPaymentCounts]) await migration.up(knex);
}
