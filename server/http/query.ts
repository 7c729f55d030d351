// The query string as openapi-backend should see it. Its own parse (qs with default options) drops
// keys named after Object.prototype members (`constructor`, `toString`, `__proto__`...) without a
// word, so `?constructor=1` was a 200 with unfiltered data where any other unknown parameter is a
// 422. Parsed into null-prototype objects, those keys reach validation like any other key.
import { parse } from 'qs';

type QueryObject = Record<string, unknown>;

const PROTO = '__proto__';

/** `filter[a][b]` -> ['filter', 'a', 'b'] (qs's bracket notation, as far as our parameters go). */
function segments(key: string): string[] {
  const [head = '', ...rest] = key.split('[');
  return [head, ...rest.map((part) => part.replace(/\]$/, ''))];
}

/** qs refuses `__proto__` even into null-prototype objects; put it back as a plain own key. */
function reinstateProto(query: QueryObject, raw: string): void {
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = segments(key);
    if (!path.includes(PROTO)) continue;
    let target = query;
    for (const segment of path.slice(0, -1)) {
      const next = Object.hasOwn(target, segment) ? target[segment] : undefined;
      if (next === null || typeof next !== 'object') {
        const created: QueryObject = Object.create(null);
        Object.defineProperty(target, segment, { value: created, enumerable: true, writable: true, configurable: true });
        target = created;
      } else {
        target = next as QueryObject;
      }
    }
    Object.defineProperty(target, path.at(-1)!, { value, enumerable: true, writable: true, configurable: true });
  }
}

/**
 * Back to ordinary objects (the rest of the stack expects `hasOwnProperty` and friends); fromEntries
 * defines keys rather than assigning them, so even `__proto__` stays an own key.
 */
function ordinary(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordinary);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, ordinary(item)]));
}

export function parseQuery(raw: string): QueryObject {
  if (!raw) return {};
  const query = parse(raw, { allowPrototypes: true, plainObjects: true }) as QueryObject;
  reinstateProto(query, raw);
  return ordinary(query) as QueryObject;
}
