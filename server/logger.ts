// Structured JSON logs (pino), one line per event, for log shippers to index.
// What we log is chosen field by field (never a request body or headers), and every message and error
// is scrubbed once more on the way out: a key or a card number that reaches a log line through an
// error message (a driver echoing a value, a library quoting its input) is masked before it is written.
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// API keys (sk_ + 43 URL-safe characters), Stripe's restricted keys (rk_live_..., rk_test_...),
// webhook and redirect signing keys (whsec_..., rsec_...).
const SECRET_KEY = /\b(sk|rk|whsec|rsec)_[A-Za-z0-9_-]{8,}/g;
// 13 to 19 digits, optionally grouped by spaces or dashes: any card number (PAN).
const CARD_NUMBER = /\b\d(?:[ -]?\d){12,18}\b/g;
// A CVC only means something next to its name: "cvc":"123", cvc=123, cvv: 1234.
const CVC = /\b(cvc|cvv|cvc2|cvv2|security_code)(["']?\s*[:=]\s*["']?)\d{3,4}/gi;

// Anything the three patterns above can match contains one of these (a key's prefix, thirteen digits
// with at most one space or dash between two, a CVC's name): most log text (routes, methods, messages,
// the request id every access line carries) does not, and is let through without running them. Three
// digits in a row were the test once, which every UUID request id met. E-mail addresses are looked for
// only in text with an @.
const MAYBE_SECRET = /(?:sk|rk|whsec|rsec)_|\d(?:[ -]?\d){12}|cvc|cvv|security_code/i;

/** Masks API keys, webhook secrets, card numbers, CVCs and e-mail addresses in free text. */
export function scrub(text: string): string {
  return MAYBE_SECRET.test(text) || text.includes('@') ? maskSecrets(text) : text;
}

/** The masking itself, on any text (scrub runs it only where it can change something). */
export function maskSecrets(text: string): string {
  const masked = text
    .replace(SECRET_KEY, (_match, kind: string) => `${kind}_[redacted]`)
    .replace(CARD_NUMBER, '[card number redacted]')
    .replace(CVC, (_match, name: string, separator: string) => `${name}${separator}[redacted]`);
  return masked.includes('@') ? maskEmails(masked) : masked;
}

const LOCAL_PART = /[\p{L}\p{N}._%+-]/u;
const DOMAIN = /[\p{L}\p{N}.-]/u;

/**
 * Masks every e-mail address as the pay page shows one (`a***@example.com`: the first character,
 * `***`, the domain; a local part under three characters is hidden whole). An SMTP server's refusal,
 * for one, quotes the payer's address. Walks out from each @ (never past the previous one), so the
 * cost stays linear in the text.
 */
export function maskEmails(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > copied && LOCAL_PART.test(text[start - 1]!)) start -= 1;
    let end = at + 1;
    while (end < text.length && DOMAIN.test(text[end]!)) end += 1;
    // A full stop that ends the sentence is not the domain's.
    while (end > at + 1 && text[end - 1] === '.') end -= 1;
    const domain = text.slice(at + 1, end);
    if (start === at || !domain.includes('.')) continue;
    const local = Array.from(text.slice(start, at));
    out += `${text.slice(copied, start)}${local.length >= 3 ? local[0] : ''}***@${domain}`;
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  // pino serializes errors after this hook runs; an Error's own fields are not enumerable.
  if (value instanceof Error) return scrubValue(pino.stdSerializers.err(value), depth);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  // Copied only when something in it changes: an access line, all numbers and safe text, is logged as it is.
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const scrubbed = REDACTED_FIELDS.has(key) && item !== undefined ? REDACTED : scrubValue(item, depth + 1);
    if (scrubbed !== item) (copy ??= { ...value })[key] = scrubbed;
  }
  return copy ?? value;
}

/** Fields that hold a member's password, a two-factor code or a session: never written to a log line. */
const SECRET_FIELDS = ['password', 'current_password', 'password_confirmation', 'totp_code', 'recovery_code', 'csrf_token'];
/**
 * Those, and a request's credentials (an Authorization header, cookies, a key), could only reach a line
 * by mistake: their values are replaced wherever they are in the object logged. This is done in the walk
 * that scrubs every line anyway; pino's `redact` with wildcard paths cost each access line more than the
 * line's own writing.
 */
const REDACTED_FIELDS = new Set([...SECRET_FIELDS, 'authorization', 'cookie', 'key', 'apiKey']);
const REDACTED = '[redacted]';

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stdout by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'payment-collection' },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      // Credentials could only get here by mistake; they never leave the process. These exact paths stay with
      // pino's redact, which runs after its serializers (pino-http's `req` has its headers only once
      // serialized); the walk below (REDACTED_FIELDS) replaces the same fields and members' secrets wherever
      // they are in the object logged, in place of the wildcard paths (`*.password`), the costly part of redact.
      redact: {
        paths: ['headers.authorization', 'headers.cookie', 'req.headers.authorization', 'req.headers.cookie', 'key', 'apiKey'],
        censor: REDACTED,
      },
      formatters: { log: (object) => scrubValue(object) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrub(arg) : arg)) as Parameters<typeof method>);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** A logger that writes nothing, for tests and tools that do not want service logs. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
