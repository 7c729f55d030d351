// Text the service stores must read back exactly as sent on both databases: PostgreSQL refuses NUL in
// text, and a lone UTF-16 surrogate turns into U+FFFD on the way to either database.
const STORABLE = /^(?:[^\0\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;

/** The `storable-text` format of openapi.yaml: no NUL, no unpaired surrogate. */
export function isStorableText(value: string): boolean {
  return STORABLE.test(value);
}
