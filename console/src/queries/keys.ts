// What every query module builds its keys from. openapi-react-query keys a query `[method, path, init]`
// (`[method, path]` without an init), and TanStack Query matches a key by its prefix: `everyQueryOf('/payments')`
// is every page and filter of the payments list, and nothing of `/payments/{payment_id}`, a path of its own.
import type { paths } from '@payment-collection/client';

/** A path the contract declares a GET on. */
export type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths];

/** The query parameters of a GET, as the contract declares them. */
export type GetQuery<P extends GetPath> = paths[P] extends { get: { parameters: { query?: infer Query } } } ? NonNullable<Query> : never;

/** The prefix of every query of a GET path: all its pages and filters, or all its records. */
export function everyQueryOf<P extends GetPath>(path: P): readonly ['get', P] {
  return ['get', path] as const;
}
