// The one way store functions reach a database. Every store function builds its SQL with the
// executor's Knex query builder (`exec.sql`) and runs it through `all`, `first` or `run`; it never
// chooses a connection, a driver call or a transaction mode. How a statement runs is the
// executor's business, by one rule per database (see sqlite.ts and postgres.ts). A query of fixed
// shape that a request runs every time (a record by its id, an insert, a page of a list) is built
// and compiled by Knex once per dialect and bound to each call's values (`fixedQuery`): its SQL is
// the same whatever the values, and compiling it again on every call was the larger part of Knex's
// cost in the request path.
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';

/** A statement as the drivers take it: SQL in the database's own placeholder syntax and its values. */
export interface CompiledQuery {
  sql: string;
  bindings: readonly unknown[];
}

/** A query built with `exec.sql`, or one compiled ahead of time (`fixedQuery`). */
export type Query = Knex.QueryBuilder | Knex.Raw | CompiledQuery;

export type Dialect = 'sqlite' | 'postgres';

export interface Executor {
  readonly dialect: Dialect;
  /** Builds queries in this executor's dialect. Built queries do not run by themselves: pass them to the methods below. */
  readonly sql: Knex;
  /** Every row of a query (a SELECT, or a write with RETURNING). */
  all<Row = Record<string, unknown>>(query: Query): Promise<Row[]>;
  /** The first row, or undefined. */
  first<Row = Record<string, unknown>>(query: Query): Promise<Row | undefined>;
  /** Runs a write and resolves with the number of rows it changed, once it is durable. */
  run(query: Query): Promise<number>;
  /**
   * Runs `work` in one transaction: its statements commit together or not at all. Inside, `tx` is
   * the executor to use; a transaction opened on `tx` is a savepoint of the outer one.
   */
  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T>;
}

export function compile(query: Query): CompiledQuery {
  if ('toSQL' in query) {
    const native = query.toSQL().toNative();
    return { sql: native.sql, bindings: native.bindings };
  }
  return query;
}

/** Stands for a value in a fixed query's template; each call binds its own value in its place. */
class Parameter {
  constructor(readonly name: string) {}
}

interface Template {
  sql: string;
  /** Each binding: a parameter's name to bind, or a value that is part of the shape. */
  slots: ({ parameter: string } | { value: unknown })[];
}

/** Templates by dialect and shape. Bounded: a shape key may carry a page size, a direction, which filters are set. */
const templates = new LRUCache<string, Template>({ max: 2_000 });

/**
 * A query whose SQL depends only on `shape` (a name unique to the call site, plus whatever of the
 * request changes the SQL itself: which filters are set, a direction, a page size), built by `build`
 * once per dialect and bound to `values` on every call. Whatever varies between calls must reach the
 * query through `param(name)`: a value written into the builder directly is part of the template and
 * would be the same for every later call of that shape.
 */
export function fixedQuery<P extends string>(
  db: Executor,
  shape: string,
  build: (sql: Knex, param: (name: P) => Knex.Value) => Knex.QueryBuilder | Knex.Raw,
  values: Readonly<Record<P, unknown>>,
): CompiledQuery {
  const key = `${db.dialect} ${shape}`;
  let template = templates.get(key);
  if (!template) {
    const used = new Set<string>();
    const param = (name: P) => {
      used.add(name);
      return new Parameter(name) as unknown as Knex.Value;
    };
    const { sql, bindings } = compile(build(db.sql, param));
    const slots = bindings.map((binding) => (binding instanceof Parameter ? { parameter: binding.name } : { value: binding }));
    const bound = new Set(slots.flatMap((slot) => ('parameter' in slot ? [slot.parameter] : [])));
    const lost = [...used].filter((name) => !bound.has(name));
    if (lost.length > 0) throw new Error(`fixed query ${shape}: parameter(s) ${lost.join(', ')} did not become bindings`);
    template = { sql, slots };
    templates.set(key, template);
  }
  const slots = template.slots;
  const bindings = new Array<unknown>(slots.length);
  for (let i = 0; i < slots.length; i += 1) {
    const slot = slots[i]!;
    bindings[i] = 'parameter' in slot ? values[slot.parameter as P] : slot.value;
  }
  return { sql: template.sql, bindings };
}
