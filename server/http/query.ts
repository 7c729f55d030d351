// The query string as the validators see it: one key per parameter exactly as sent (decoded), so
// `filter[status]` is the parameter openapi.yaml declares by that name, not a member of an object.
// A repeated key becomes an array (which no parameter accepts, so it is a 422, never the first or
// last value silently). Keys named after Object.prototype members (`constructor`, `__proto__`)
// are own keys like any other, so validation refuses them as unknown parameters.
type QueryObject = Record<string, string | string[]>;

export function parseQuery(raw: string): QueryObject {
  const query: QueryObject = {};
  if (!raw) return query;
  for (const [key, value] of new URLSearchParams(raw)) {
    if (!Object.hasOwn(query, key)) {
      // defineProperty, not assignment: `__proto__` must become an own key, not the object's prototype.
      Object.defineProperty(query, key, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const existing = query[key]!;
    query[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}
