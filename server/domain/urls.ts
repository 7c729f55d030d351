export const URL_MAX_LENGTH = 2048;

// The URL parser percent-encodes these silently, but the URL is stored as sent: PostgreSQL refuses
// NUL in text, and no database can keep a lone surrogate (it reads back as U+FFFD).
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL_OR_LONE_SURROGATE = /[\u0000-\u001f\u007f\uD800-\uDFFF]/u;

/** An absolute http(s) URL with a host. Rejects javascript:, data:, file: and relative URLs. */
export function isHttpUrl(value: string): boolean {
  if (value.length > URL_MAX_LENGTH || /\s/.test(value) || CONTROL_OR_LONE_SURROGATE.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 && /^https?:\/\//i.test(value);
}

/** Appends query parameters to a URL that may already carry some (a merchant's redirect_url). */
export function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}
