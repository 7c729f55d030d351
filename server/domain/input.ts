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

/** A string as Laravel's middleware leaves it; anything else as it is. */
function trimmed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = trimText(value);
  return text === '' ? null : text;
}

/** An empty array or object to copy `value` into, or undefined when it is neither. */
const emptyCopyOf = (value: unknown): unknown[] | Record<string, unknown> | undefined =>
  Array.isArray(value) ? [] : value !== null && typeof value === 'object' ? {} : undefined;

/**
 * The body as Laravel's middleware leaves it: strings trimmed, empty strings null, at any depth.
 * Walked with a list of what is left to copy rather than by recursion, so that no body, however
 * deeply nested, can run it out of stack.
 */
export function laravelInput(value: unknown): unknown {
  const root = emptyCopyOf(value);
  if (!root) return trimmed(value);
  const pending: [unknown, unknown[] | Record<string, unknown>][] = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [source, copy] = next;
    for (const [key, item] of Object.entries(source as object)) {
      const inner = emptyCopyOf(item);
      if (inner) pending.push([item, inner]);
      const kept = inner ?? trimmed(item);
      if (Array.isArray(copy)) copy.push(kept);
      // defineProperty keeps a `__proto__` member an own key (the body parser refuses such bodies anyway).
      else Object.defineProperty(copy, key, { value: kept, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}
