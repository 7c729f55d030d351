// Laravel's default input middleware, which the seed's clients expect: every string of a request body
// is trimmed (TrimStrings) and an empty string becomes null (ConvertEmptyStringsToNull) before
// validation. So `"title": "   "` is a missing title, and an optional field sent as "" is stored null.
// PHP's trim() strips spaces, tabs, line breaks and vertical tabs at both ends; it also strips NUL,
// which is kept here so that a NUL anywhere in a text is refused as text no database can store.

const TRIMMED = new Set([' ', '\t', '\n', '\r', '\v']);

/** PHP's trim() without NUL, in one pass from each end. */
export function trimText(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && TRIMMED.has(text[start]!)) start += 1;
  while (end > start && TRIMMED.has(text[end - 1]!)) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** The body as Laravel's middleware leaves it: strings trimmed, empty strings null, at any depth. */
export function laravelInput(value: unknown): unknown {
  if (typeof value === 'string') {
    const text = trimText(value);
    return text === '' ? null : text;
  }
  if (Array.isArray(value)) return value.map(laravelInput);
  if (value === null || typeof value !== 'object') return value;
  // defineProperty keeps a `__proto__` member an own key (the body parser refuses such bodies anyway).
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    Object.defineProperty(out, key, { value: laravelInput(item), enumerable: true, writable: true, configurable: true });
  return out;
}
