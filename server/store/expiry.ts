// The one rule by which both kinds of link expire, for every statement that must not touch an expired link.
import type { Knex } from 'knex';

/** Rows of a link whose `expires_at` has not passed at `at` (or that never expires); for `.modify(notExpiredAt, at)`. */
export function notExpiredAt(query: Knex.QueryBuilder, at: string): Knex.QueryBuilder {
  return query.andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', at));
}
