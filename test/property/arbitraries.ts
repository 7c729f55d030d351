// Generators derived from openapi.yaml. Each request field's generator is built from its schema
// (type, nullability, lengths, bounds, pattern, format, enum), and the rules JSON Schema cannot
// express are read from the contract's own words where it states them: ISO 4217 codes, http(s) URLs,
// the `minimum_amount` range and precision from its description. A shape the builders do not
// recognise throws, so a contract change cannot quietly leave a field untested.
import fc from 'fast-check';
import { isStorableText } from '../../server/domain/text.js';
import { dereferencedSpec } from '../support/contract.js';

export interface Schema {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  default?: unknown;
  const?: unknown;
  description?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

interface Parameter {
  name: string;
  in: string;
  style?: string;
  description?: string;
  schema: Schema;
}

// openapi.yaml with every $ref resolved, the contract checker's copy (read only here).
const { paths } = (await dereferencedSpec()) as { paths: Record<string, Record<string, unknown>> };

export interface OperationSpec {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** The JSON request body, when the operation takes one. */
  body?: Schema;
  /** `data` of the 200 envelope. */
  data: Schema;
}

export function operation(method: string, path: string): OperationSpec {
  const item = paths[path];
  const op = item?.[method.toLowerCase()] as
    | {
        operationId: string;
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<string, { content: Record<string, { schema: Schema }> }>;
      }
    | undefined;
  if (!item || !op) throw new Error(`openapi.yaml has no ${method} ${path}`);
  const content = op.responses['200']?.content ?? {};
  const data = content['application/json']?.schema.properties?.data;
  // A read that answers an image (a link's QR code) has no envelope: its properties look at the status and the image.
  const image = Object.keys(content).some((type) => type.startsWith('image/'));
  if (!data && !image) throw new Error(`${method} ${path}: no 200 envelope with data`);
  return {
    operationId: op.operationId,
    method,
    path,
    parameters: [...((item.parameters as Parameter[] | undefined) ?? []), ...(op.parameters ?? [])],
    body: op.requestBody?.content['application/json']?.schema,
    data: data ? flatten(data) : {},
  };
}

/** `allOf` of objects as one object schema (the paginator pages are written that way). */
function flatten(schema: Schema): Schema {
  if (!schema.allOf) return schema;
  const parts = schema.allOf.map(flatten);
  return {
    type: 'object',
    required: parts.flatMap((part) => part.required ?? []),
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
  };
}

export const typesOf = (schema: Schema): string[] => (schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]);

// ---------------------------------------------------------------------------------------------
// Text

const UNITS = {
  ascii: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  printable: fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 1 }),
  /** Any code point, controls included (never half a surrogate pair). */
  anyCodePoint: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  /** Outside the BMP: one character, two UTF-16 units, which `maxLength` must count once. */
  astral: fc.integer({ min: 0x10000, max: 0x10ffff }).map((codePoint) => String.fromCodePoint(codePoint)),
};

/** Text of `min..max` code points matching the schema's pattern (checked per character, then whole). */
/** PHP's trim() without NUL, as the service applies it to request bodies (written apart from the server's code). */
export function laravelTrim(text: string): string {
  const edge = new Set([' ', '\t', '\n', '\r', '\v']);
  const chars = [...text];
  while (chars.length > 0 && edge.has(chars[0]!)) chars.shift();
  while (chars.length > 0 && edge.has(chars.at(-1)!)) chars.pop();
  return chars.join('');
}

/** Characters as Laravel (and Ajv's maxLength) count them: code points, not UTF-16 units. */
const length = (text: string) => [...text].length;

function textOf(schema: Schema, min: number, max: number): fc.Arbitrary<string> {
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern, 'u');
  const allowed = (text: string) => pattern === undefined || pattern.test(text);
  // A character the pattern takes somewhere: alone or repeated, as a pattern that asks for a few
  // characters at least (`[^\x00]{3,}`) never matches one alone. Testing it alone only would let
  // nothing but digits through `filter[search]`'s pattern, and fast-check would draw about a million
  // code points for each one kept, blocking the event loop (and the service in it) for seconds.
  const allowedCharacter = (char: string) => pattern === undefined || [1, 2, 3, 4].some((times) => pattern.test(char.repeat(times)));
  const unit = fc.oneof(
    { arbitrary: UNITS.ascii, weight: 6 },
    { arbitrary: UNITS.printable, weight: 2 },
    { arbitrary: UNITS.anyCodePoint.filter(allowedCharacter), weight: 1 },
    { arbitrary: UNITS.astral, weight: 1 },
  );
  return fc
    .oneof(
      { arbitrary: fc.string({ unit, minLength: min, maxLength: max }), weight: 4 },
      // Lengths at the bound itself, where off-by-one and UTF-16-versus-code-point mistakes live.
      { arbitrary: fc.string({ unit, minLength: Math.max(min, max - 2), maxLength: max }), weight: 1 },
    )
    .filter(allowed);
}

/** Puts a character between two code points of a text, never between the halves of a surrogate pair. */
function insertInto(texts: fc.Arbitrary<string>, chars: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(texts, chars, fc.nat()).map(([text, char, at]) => {
    const points = [...text];
    points.splice(at % (points.length + 1), 0, char);
    return points.join('');
  });
}

// ---------------------------------------------------------------------------------------------
// Formats the contract names, with the rules it states in prose.

/** Current ISO 4217 codes, independent of the server's own list (which comes from ICU). */
export const CURRENCIES = [
  'AED',
  'AUD',
  'BDT',
  'BHD',
  'BND',
  'BRL',
  'CAD',
  'CHF',
  'CLP',
  'CNY',
  'COP',
  'CZK',
  'DKK',
  'EGP',
  'EUR',
  'GBP',
  'HKD',
  'HUF',
  'IDR',
  'ILS',
  'INR',
  'ISK',
  'JOD',
  'JPY',
  'KES',
  'KHR',
  'KRW',
  'KWD',
  'LAK',
  'LKR',
  'MAD',
  'MMK',
  'MXN',
  'MYR',
  'NGN',
  'NOK',
  'NZD',
  'OMR',
  'PEN',
  'PHP',
  'PKR',
  'PLN',
  'QAR',
  'RON',
  'SAR',
  'SEK',
  'SGD',
  'THB',
  'TND',
  'TRY',
  'TWD',
  'UAH',
  'USD',
  'VND',
  'XAF',
  'XOF',
  'ZAR',
  'SLE',
  'STN',
  'MRU',
  'VES',
  'ZWG',
  'XCG',
  'CUP',
] as const;
/** Three capital letters that ISO 4217 has never assigned. */
const UNASSIGNED_CODES = ['AAA', 'ABC', 'QQQ', 'ZZZ', 'XYZ', 'DOG', 'EUX', 'USX', 'MYX', 'RMB'];

const LOOKALIKES: Record<string, string> = {
  A: '\u0410',
  B: '\u0412',
  C: '\u0421',
  E: '\u0415',
  H: '\u041d',
  K: '\u041a',
  M: '\u041c',
  O: '\u041e',
  P: '\u0420',
  T: '\u0422',
  X: '\u0425',
  Y: '\u0423',
};
const fullwidth = (text: string) => text.replace(/[\x21-\x7e]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));
const arabicIndic = (text: string) => text.replace(/[0-9]/g, (digit) => String.fromCharCode(0x0660 + Number(digit)));

const currency = fc.constantFrom(...CURRENCIES);

/** An e-mail address that is valid by RFC 5322's dot-atom rules and exactly `length` characters long. */
function emailOfLength(length: number): string {
  const local = 'a'.repeat(Math.min(64, length - 6));
  let rest = length - local.length - 1 - '.com'.length;
  const labels: string[] = [];
  while (rest > 0) {
    // A label of 1..63 characters, leaving either nothing or room for a dot and one more label.
    const size = rest <= 63 ? rest : Math.min(63, rest - 2);
    labels.push(String.fromCharCode(98 + (labels.length % 24)).repeat(size));
    rest -= size + 1;
  }
  const address = `${local}@${labels.join('.')}.com`;
  if (address.length !== length) throw new Error(`emailOfLength(${length}) built ${address.length} characters`);
  return address;
}

const webUrl = fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true });

function urlOfLength(length: number): string {
  const base = 'https://merchant.example.com/';
  return base + 'p'.repeat(length - base.length);
}

interface DecimalRule {
  minCents: number;
  maxCents: number;
}

/** `minimum_amount`'s range, as its description states it; the precision the generators assume (two decimals) is checked there too. */
function decimalRule(schema: Schema): DecimalRule {
  const text = (schema.description ?? '').replace(/\s+/g, ' ');
  const range = /from ([0-9]+\.[0-9]{2}) to ([0-9]+\.[0-9]{2})/.exec(text);
  const precision = /at most (two|2) decimals/.exec(text);
  if (!range || !precision) throw new Error(`cannot read the range and precision of an amount from: ${text}`);
  const cents = (units: string) => Number(units.replace('.', ''));
  return { minCents: cents(range[1]!), maxCents: cents(range[2]!) };
}

/** Cents as currency-unit text in any form the contract allows: "25.50", "25.5", "25" (and leading zeros). */
function unitsText(cents: number, style: number, zeros: number): string {
  const negative = cents < 0;
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100));
  const fraction = String(abs % 100).padStart(2, '0');
  let text = `${whole}.${fraction}`;
  if (style === 1 && fraction.endsWith('0')) text = `${whole}.${fraction[0]}`;
  if (style === 2 && fraction === '00') text = whole;
  return `${negative ? '-' : ''}${'0'.repeat(zeros)}${text}`;
}

/** Cents in any accepted form: unit text, or a JSON number of units (25.5, printed exactly by JSON). */
function unitsOf(cents: fc.Arbitrary<number>): fc.Arbitrary<string | number> {
  const zeros = fc.oneof({ arbitrary: fc.constant(0), weight: 5 }, { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 1 });
  return fc.oneof(
    fc.tuple(cents, fc.integer({ min: 0, max: 2 }), zeros).map(([value, style, padding]) => unitsText(value, style, padding)),
    cents.map((value) => value / 100),
  );
}

// ---------------------------------------------------------------------------------------------
// Field models: what a valid value is, and every way of making it invalid.

export const MISSING = Symbol('missing');
export type Mutated = unknown | typeof MISSING;

export interface FieldMutation {
  field: string;
  /** missing, null, type, empty, too-long, range, format, unicode. */
  kind: string;
  value: fc.Arbitrary<Mutated>;
}

interface FieldModel {
  valid: fc.Arbitrary<unknown>;
  /** Invalid values by kind (missing and null are added from the schema). */
  invalid: Record<string, fc.Arbitrary<unknown>>;
}

const EMOJI = '\u{1F600}';
const hugeNumbers = fc.constantFrom(1e300, Number.MAX_VALUE, 2 ** 53 + 2, 1e21, -1e300, Number.MAX_SAFE_INTEGER);

/** JSON values of the types the schema does not accept (null is its own mutation). */
function wrongTypes(types: string[]): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [
    fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  ];
  if (!types.includes('string')) options.push(fc.string({ maxLength: 20 }), fc.constantFrom('true', '1', ''));
  if (!types.includes('boolean')) options.push(fc.boolean());
  if (!types.includes('number')) {
    const fractional = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }).filter((value) => !Number.isInteger(value));
    options.push(types.includes('integer') ? fractional : fc.oneof(fc.integer(), fractional, hugeNumbers));
  }
  return fc.oneof(...options);
}

function textModel(schema: Schema): FieldModel {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength;
  if (max === undefined) throw new Error('a text field without maxLength: the contract promises sensible maximums');
  const invalid: Record<string, fc.Arbitrary<unknown>> = {
    // Still too long once trimmed.
    'too-long': fc
      .tuple(textOf(schema, max + 1, max + 20), fc.boolean())
      .map(([text, astral]) => (astral ? EMOJI.repeat(max + 1) : text))
      .filter((text) => length(laravelTrim(text)) > max),
  };
  // Blank is missing: trimmed to "", then null (Laravel's middleware).
  if (min > 0) invalid.empty = fc.constantFrom('', '   ', '\t\n');
  if (schema.format === 'storable-text') {
    const pattern = new RegExp(schema.pattern ?? '', 'u');
    // The text rule's documented meaning: NUL and lone surrogates are refused (format and pattern together).
    const accepts = (text: string) => pattern.test(text) && isStorableText(text);
    for (const char of ['\u0000', '\uD800', '\uDFFF']) if (accepts(`a${char}b`)) throw new Error(`the text rule accepts ${JSON.stringify(char)}`);
    invalid.format = insertInto(textOf(schema, 0, max - 1), fc.constant('\u0000'));
    invalid.unicode = insertInto(textOf(schema, 0, max - 1), fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF'));
  }
  // `max` emoji are `2 * max` UTF-16 units but `max` characters: valid, as Laravel counts characters.
  // Valid once trimmed, as the service reads it (a required text must keep a character).
  const valid = fc
    .oneof({ arbitrary: textOf(schema, min, max), weight: 19 }, { arbitrary: fc.constant(EMOJI.repeat(max)), weight: 1 })
    .filter((text) => length(laravelTrim(text)) >= min);
  return { valid, invalid };
}

function emailModel(schema: Schema): FieldModel {
  const max = schema.maxLength ?? 254;
  const address = fc.emailAddress().filter((email) => email.length <= max - 2);
  const parts = address.map((email) => {
    const at = email.lastIndexOf('@');
    return { local: email.slice(0, at), domain: email.slice(at + 1) };
  });
  return {
    valid: fc.oneof({ arbitrary: address, weight: 5 }, { arbitrary: fc.integer({ min: max - 5, max }).map(emailOfLength), weight: 1 }),
    invalid: {
      empty: fc.constant(''),
      'too-long': fc.integer({ min: max + 1, max: max + 40 }).map(emailOfLength),
      format: fc.oneof(
        parts.map(({ local, domain }) => `${local}${domain}`),
        parts.map(({ local, domain }) => `${local}@@${domain}`),
        parts.map(({ local, domain }) => `${local} @${domain}`),
        parts.map(({ domain }) => `@${domain}`),
        parts.map(({ local }) => `${local}@`),
        parts.map(({ local, domain }) => `.${local}@${domain}`),
        parts.map(({ local, domain }) => `${local}.@${domain}`),
        parts.map(({ local, domain }) => `${local}@-${domain}`),
        parts.map(({ local, domain }) => `${local}@${domain}..com`),
      ),
      unicode: parts.map(({ local, domain }) => `${local}\uff20${domain}`),
    },
  };
}

function currencyModel(): FieldModel {
  return {
    valid: currency,
    invalid: {
      empty: fc.constant(''),
      format: fc.oneof(
        currency.map((code) => code.toLowerCase()),
        fc.tuple(currency, fc.integer({ min: 0, max: 2 })).map(([code, at]) => code.slice(0, at) + code[at]!.toLowerCase() + code.slice(at + 1)),
        currency.map((code) => code.slice(0, 2)),
        currency.map((code) => `${code}X`),
        currency.map((code) => ` ${code}`),
        currency.map((code) => `${code} `),
        fc.constantFrom(...UNASSIGNED_CODES),
        fc.stringMatching(/^[0-9]{3}$/),
      ),
      unicode: fc.oneof(
        currency.filter((code) => [...code].some((char) => char in LOOKALIKES)).map((code) => [...code].map((char) => LOOKALIKES[char] ?? char).join('')),
        currency.map(fullwidth),
        currency.map((code) => `${code.slice(0, 2)}\u20ac`),
      ),
    },
  };
}

function urlModel(schema: Schema): FieldModel {
  const max = schema.maxLength;
  if (max === undefined) throw new Error('redirect_url without maxLength');
  const valid = webUrl.filter((url) => url.length <= max);
  const insert = (chars: string[]) =>
    fc.tuple(valid, fc.constantFrom(...chars)).map(([url, char]) => {
      const cut = url.length - Math.floor(url.length / 4);
      return `${url.slice(0, cut)}${char}${url.slice(cut)}`.slice(0, max);
    });
  return {
    valid: fc.oneof({ arbitrary: valid, weight: 5 }, { arbitrary: fc.integer({ min: max - 3, max }).map(urlOfLength), weight: 1 }),
    invalid: {
      'too-long': fc.integer({ min: max + 1, max: max + 50 }).map(urlOfLength),
      format: fc.oneof(
        fc.constantFrom(
          'javascript:alert(1)',
          'data:text/html,<b>x</b>',
          'file:///etc/passwd',
          'mailto:payer@example.com',
          'http://',
          'https://',
          'http:/merchant.example.com',
          '/thanks',
          'thanks',
          '',
        ),
        valid.map((url) => url.replace(/^https?:/, 'ftp:')),
        valid.map((url) => url.replace(/^https?:/, '')),
        valid.map((url) => url.replace(/^https?:\/\//, '')),
        valid.map((url) => url.replace(/^(https?:\/\/[^/?#]*)/, '$1/a b')),
        insert(['\u0000', '\u0001', '\u001f', '\u007f']),
      ),
      unicode: fc.oneof(
        valid.map((url) => url.replace(/^https?/, (scheme) => fullwidth(scheme))),
        insert(['\uD800', '\uDFFF']),
      ),
    },
  };
}

/** `amount`: a JSON integer or an integer string, within the schema's minimum and maximum. */
function integerOrDigitsModel(schema: Schema): FieldModel {
  const { minimum: min, maximum: max, maxLength } = schema;
  // The pattern restates, for tools, the integer-string rule the service checks itself (x-restates).
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern);
  if (
    min === undefined ||
    max === undefined ||
    maxLength === undefined ||
    !pattern ||
    ![min, max, `00${min}`].every((value) => pattern.test(String(value))) ||
    [min - 1, max + 1, `${min}.5`].some((value) => pattern.test(String(value)))
  )
    throw new Error('unexpected shape of an integer-or-digits field');
  const inRange = fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
  const digits = (values: fc.Arbitrary<number>) => fc.tuple(values, fc.integer({ min: 0, max: 3 })).map(([value, zeros]) => `${'0'.repeat(zeros)}${value}`);
  const below = fc.integer({ min: -(2 ** 31), max: min - 1 });
  const above = fc.integer({ min: max + 1, max: Number.MAX_SAFE_INTEGER });
  return {
    valid: fc.oneof(inRange, digits(inRange)),
    invalid: {
      empty: fc.constant(''),
      range: fc.oneof(below, above, digits(fc.integer({ min: 0, max: min - 1 })), digits(above), hugeNumbers, fc.constant('9'.repeat(maxLength))),
      format: fc.oneof(
        inRange.map((value) => `${value}.5`),
        inRange.map((value) => `${value}.00`),
        inRange.map((value) => `-${value}`),
        inRange.map((value) => `+${value}`),
        inRange.map((value) => ` ${value}`),
        inRange.map((value) => `${value} `),
        inRange.map((value) => `${value}e0`),
        inRange.map((value) => `0x${value.toString(16)}`),
        inRange.map((value) => value.toLocaleString('en-US')).filter((text) => text.includes(',')),
        fc.constantFrom('abc', 'NaN', 'Infinity', '1e3', '5_000'),
      ),
      unicode: fc.oneof(
        inRange.map((value) => fullwidth(String(value))),
        inRange.map((value) => arabicIndic(String(value))),
      ),
      'too-long': fc.tuple(inRange, fc.integer({ min: 1, max: 8 })).map(([value, extra]) => String(value).padStart(maxLength + extra, '0')),
    },
  };
}

/** `minimum_amount`: currency units as text or a JSON number, bounds and precision from the description. */
function decimalModel(schema: Schema): FieldModel {
  const rule = decimalRule(schema);
  const maxLength = schema.maxLength ?? 32;
  const inRange = fc.oneof(fc.integer({ min: rule.minCents, max: rule.maxCents }), fc.constantFrom(rule.minCents, rule.maxCents));
  const text = (cents: fc.Arbitrary<number>) => fc.tuple(cents, fc.integer({ min: 0, max: 2 })).map(([value, style]) => unitsText(value, style, 0));
  return {
    valid: unitsOf(inRange),
    invalid: {
      empty: fc.constant(''),
      range: fc.oneof(
        unitsOf(fc.integer({ min: -1_000_000, max: rule.minCents - 1 })),
        unitsOf(fc.integer({ min: rule.maxCents + 1, max: 2 ** 50 })),
        hugeNumbers,
        fc.constant(`${'9'.repeat(maxLength - 3)}.00`),
      ),
      format: fc.oneof(
        // A third decimal that matters, as text and as a JSON number.
        fc
          .tuple(
            inRange.filter((value) => value < rule.maxCents),
            fc.integer({ min: 1, max: 9 }),
          )
          .map(([value, digit]) => `${unitsText(value, 0, 0)}${digit}`),
        fc
          .tuple(
            inRange.filter((value) => value < rule.maxCents),
            fc.integer({ min: 1, max: 9 }),
          )
          .map(([value, digit]) => Number(`${unitsText(value, 0, 0)}${digit}`)),
        text(inRange)
          .map((value) => value.replace('.', ','))
          .filter((value) => value.includes(',')),
        text(inRange).map((value) => ` ${value}`),
        text(inRange).map((value) => `${value} `),
        text(inRange).map((value) => `+${value}`),
        inRange.map((value) => `${Math.floor(value / 100)}.`),
        inRange.map((value) => `${Math.floor(value / 100)}e0`),
        inRange.map((value) => `${unitsText(value, 0, 0)}.1`),
        fc.constantFrom('abc', 'NaN', 'Infinity', '.50', '0x10', '1/2'),
      ),
      unicode: fc.oneof(text(inRange).map(fullwidth), text(inRange).map(arabicIndic)),
      'too-long': fc.tuple(text(inRange), fc.integer({ min: 1, max: 8 })).map(([value, extra]) => value.padStart(maxLength + extra, '0')),
    },
  };
}

/** `expires_at`: an ISO 8601 date-time with a zone, in the future. */
function dateTimeModel(schema: Schema): FieldModel {
  const maxLength = schema.maxLength ?? 40;
  const minutes = fc.integer({ min: 10, max: 5 * 365 * 24 * 60 });
  const at = (offset: fc.Arbitrary<number>) => offset.map((m) => new Date(Date.now() + m * 60_000));
  const withZone = (date: Date, zone: number) => {
    const local = new Date(date.getTime() + zone * 3_600_000).toISOString().slice(0, 19);
    return zone === 0 ? `${local}Z` : `${local}${zone > 0 ? '+' : '-'}${String(Math.abs(zone)).padStart(2, '0')}:00`;
  };
  const future = fc.tuple(at(minutes), fc.constantFrom(0, 8, -5)).map(([date, zone]) => withZone(date, zone));
  return {
    valid: fc.oneof(
      future,
      at(minutes).map((date) => date.toISOString()),
    ),
    // No `empty`: Laravel's middleware makes "" null, which an optional field takes.
    invalid: {
      range: fc.tuple(at(fc.integer({ min: -5 * 365 * 24 * 60, max: -1 })), fc.constantFrom(0, 8)).map(([date, zone]) => withZone(date, zone)),
      format: fc.oneof(
        future.map((text) => text.slice(0, 10)),
        future.map((text) => text.replace('T', ' ').replace(/Z|[+-]\d{2}:\d{2}$/, '')),
        fc.constantFrom('tomorrow', '2030-13-01T00:00:00Z', '2030-02-30T00:00:00Z', '2030-01-01T25:00:00Z', 'NaN', '0'),
      ),
      unicode: future.map(fullwidth),
      // Still a date-time (RFC 3339 takes any number of fractional digits), only too long.
      'too-long': at(minutes).map((date) => date.toISOString().replace(/\.\d+Z$/, `.${'0'.repeat(maxLength)}Z`)),
    },
  };
}

/** `max_payments`: a JSON integer within the schema's bounds. */
function integerModel(schema: Schema): FieldModel {
  const { minimum: min = 0, maximum: max = Number.MAX_SAFE_INTEGER } = schema;
  // Past 2^53 - 1 JSON numbers are still numbers, just no longer every integer (a refund's amount reaches it).
  const above = max < Number.MAX_SAFE_INTEGER ? fc.integer({ min: max + 1, max: Number.MAX_SAFE_INTEGER }) : fc.constantFrom(2 ** 53, 2 ** 53 + 2, 1e21, 1e300);
  return {
    valid: fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max)),
    invalid: {
      range: fc.oneof(fc.integer({ min: -(2 ** 31), max: min - 1 }), above),
      format: fc.oneof(
        // Below 2^52, where a half is still a number of its own rather than rounded to an integer.
        fc.integer({ min, max: Math.min(max - 1, 2 ** 52 - 1) }).map((value) => value + 0.5),
        fc.constantFrom('1', 'abc'),
      ),
    },
  };
}

function booleanModel(): FieldModel {
  return { valid: fc.boolean(), invalid: {} };
}

/** A text field with a closed list of values (`locale`): one of them, or text that is none of them. */
function enumTextModel(schema: Schema): FieldModel {
  const members = (schema.enum ?? []).filter((member): member is string => typeof member === 'string');
  if (members.length === 0) throw new Error('unexpected shape of an enum field');
  return {
    valid: fc.constantFrom(...members),
    invalid: {
      // Another case, a region added, or text that is none of the members once trimmed.
      range: fc
        .oneof(fc.constantFrom(...members.map((m) => m.toUpperCase()), ...members.map((m) => `${m}-MY`), 'fr', 'zh-Hant'), fc.string({ maxLength: 12 }))
        .filter((odd) => laravelTrim(odd) !== '' && !members.includes(laravelTrim(odd))),
    },
  };
}

/** `enabled_events`: a list of distinct names from the items' enum, within minItems and maxItems. */
function enumListModel(schema: Schema): FieldModel {
  const members = schema.items?.enum as string[] | undefined;
  const { minItems = 0, maxItems } = schema;
  if (!members || maxItems === undefined || !schema.uniqueItems) throw new Error('unexpected shape of a list field');
  const member = fc.constantFrom(...members);
  const valid = fc.uniqueArray(member, { minLength: Math.max(minItems, 1), maxLength: maxItems });
  return {
    valid,
    invalid: {
      ...(minItems > 0 ? { empty: fc.constant([]) } : {}),
      // A member twice (uniqueItems).
      format: valid.chain((list) => fc.integer({ min: 0, max: list.length - 1 }).map((at) => [...list, list[at]!])),
      // A name that is none of the members, as text or as another type.
      range: fc
        .tuple(
          valid,
          fc
            .oneof(fc.string({ maxLength: 20 }), fc.constantFrom('payment.*', 'PAYMENT.CREATED', ' ping', 'all'))
            .filter((odd) => !members.includes(laravelTrim(odd))),
        )
        .map(([list, odd]) => [...list.slice(0, maxItems - 1), odd]),
    },
  };
}

function fieldModel(name: string, schema: Schema): FieldModel {
  const types = typesOf(schema);
  if (types.includes('boolean')) return booleanModel();
  if (types.includes('array')) return enumListModel(schema);
  if (types.includes('string') && schema.enum) return enumTextModel(schema);
  if (schema.format === 'email') return emailModel(schema);
  if (schema.format === 'iso4217') return currencyModel();
  if (schema.format === 'http-url') return urlModel(schema);
  if (types.includes('integer') && types.includes('string')) return integerOrDigitsModel(schema);
  if (types.includes('number') && types.includes('string')) return decimalModel(schema);
  if (schema.format === 'date-time') return dateTimeModel(schema);
  if (types.includes('integer') && !types.includes('string')) return integerModel(schema);
  if (types.includes('string') && (schema.format === undefined || schema.format === 'storable-text')) return textModel(schema);
  throw new Error(`no generator for field ${name}: ${JSON.stringify(schema)}`);
}

// ---------------------------------------------------------------------------------------------
// Bodies

export type Body = Record<string, unknown>;

export interface BodyModel {
  schema: Schema;
  fields: string[];
  required: string[];
  /** Fields whose value may be null. */
  nullable: string[];
  valid: fc.Arbitrary<Body>;
  mutations: FieldMutation[];
}

export function bodyModel(schema: Schema): BodyModel {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const models = Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, fieldModel(name, field)]));
  const nullable = Object.keys(properties).filter((name) => typesOf(properties[name]!).includes('null'));
  const valueOf = (name: string) =>
    nullable.includes(name) ? fc.oneof({ arbitrary: models[name]!.valid, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 }) : models[name]!.valid;
  const valid = fc.record(Object.fromEntries(Object.keys(properties).map((name) => [name, valueOf(name)])), { requiredKeys: required }) as fc.Arbitrary<Body>;

  const mutations: FieldMutation[] = [];
  for (const [name, field] of Object.entries(properties)) {
    const types = typesOf(field);
    if (required.includes(name)) mutations.push({ field: name, kind: 'missing', value: fc.constant(MISSING) });
    if (!types.includes('null')) mutations.push({ field: name, kind: 'null', value: fc.constant(null) });
    // Text of spaces is made null before validation: the wrong type only for a field that refuses null.
    const wrongAfterTrim = (value: unknown) => !(typeof value === 'string' && laravelTrim(value) === '' && types.includes('null'));
    mutations.push({ field: name, kind: 'type', value: wrongTypes(types).filter(wrongAfterTrim) });
    // Laravel's middleware runs first: a value it changes (trimmed, or "" made null) is only still
    // invalid when the field is required and nothing is left of it.
    const stillInvalid = (value: unknown) =>
      typeof value !== 'string' || (value !== '' && laravelTrim(value) === value) || (required.includes(name) && laravelTrim(value) === '');
    for (const [kind, value] of Object.entries(models[name]!.invalid)) mutations.push({ field: name, kind, value: value.filter(stillInvalid) });
  }
  return { schema, fields: Object.keys(properties), required, nullable, valid, mutations };
}

export function applyMutation(body: Body, field: string, value: Mutated): Body {
  if (value === MISSING) return Object.fromEntries(Object.entries(body).filter(([name]) => name !== field));
  return { ...body, [field]: value };
}

export interface InvalidBody {
  body: Body;
  field: string;
  kind: string;
}

/** A valid body with exactly one field made invalid, every (field, kind) equally likely. */
/** A valid body with this one mutation applied. */
export function invalidBody(model: BodyModel, mutation: BodyModel['mutations'][number]): fc.Arbitrary<InvalidBody> {
  return model.valid.chain((body) =>
    mutation.value.map((value) => ({ body: applyMutation(body, mutation.field, value), field: mutation.field, kind: mutation.kind })),
  );
}

/** Plausible values for a response-only field, from its response schema, so that a server copying it would be caught. */
function plausible(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const types = typesOf(schema);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  if (types.includes('boolean')) return fc.boolean();
  if (types.includes('integer')) return fc.integer();
  if (types.includes('number')) return fc.double({ noNaN: true, noDefaultInfinity: true });
  if (types.includes('string')) return fc.string({ maxLength: 30 });
  return fc.jsonValue({ maxDepth: 2 });
}

/** Names a client might send that are no request field: the store's own columns, case variants, prototype keys. */
const UNKNOWN_NAMES = [
  'id',
  'deleted_at',
  'status_id',
  'send_emails',
  'Title',
  'EMAIL',
  'amount_cents',
  'business',
  'token_value',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
];

export interface BodyWithExtras {
  body: Body;
  extras: Body;
}

/**
 * A valid body plus 1..4 fields the client may not set: read-only fields of the response (with
 * plausible values) and unknown names. The contract ignores both: the answer is still a 200.
 */
export function bodyWithExtras(model: BodyModel, response: Schema): fc.Arbitrary<BodyWithExtras> {
  const writable = new Set(model.fields);
  const readOnly = Object.keys(response.properties ?? {}).filter((name) => !writable.has(name));
  const name = fc
    .oneof(fc.constantFrom(...readOnly), fc.constantFrom(...UNKNOWN_NAMES), fc.string({ minLength: 1, maxLength: 16 }))
    .filter((candidate) => !writable.has(candidate));
  const extra = name.chain((key) => {
    const schema = response.properties?.[key];
    const value = schema
      ? fc.oneof({ arbitrary: plausible(schema), weight: 3 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 })
      : fc.jsonValue({ maxDepth: 2 });
    return value.map((v) => [key, v] as const);
  });
  return fc.tuple(model.valid, fc.uniqueArray(extra, { minLength: 1, maxLength: 4, selector: ([key]) => key })).map(([body, entries]) => {
    // defineProperty, so that `__proto__` is an own key and reaches JSON.stringify like any other.
    const extras: Body = {};
    for (const [key, value] of entries) Object.defineProperty(extras, key, { value, enumerable: true, writable: true, configurable: true });
    const merged: Body = { ...body };
    for (const [key, value] of entries) Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
    return { body: merged, extras };
  });
}

/**
 * What a valid body reads back as, field by field, with the normalisation the contract documents:
 * omitted or null optional fields are null, numeric text becomes the JSON number the response
 * schema declares (`amount` in cents, `minimum_amount` in units). Input-only fields are absent.
 */
export function expectedRecord(model: BodyModel, response: Schema, body: Body): Body {
  const expected: Body = {};
  for (const name of model.fields) {
    const schema = response.properties?.[name];
    if (!schema) continue;
    const raw = body[name];
    // Laravel's middleware: strings trimmed, empty ones null.
    const value = typeof raw === 'string' ? laravelTrim(raw) || null : raw;
    if (value === undefined || value === null) expected[name] = null;
    else if (typeof value === 'string' && (typesOf(schema).includes('number') || typesOf(schema).includes('integer'))) expected[name] = Number(value);
    // A date-time comes back as the same instant in the API's own form (UTC, six fractional digits).
    else if (typeof value === 'string' && model.schema.properties?.[name]?.format === 'date-time')
      expected[name] = `${new Date(value).toISOString().slice(0, -1)}000Z`;
    else expected[name] = value;
  }
  return expected;
}

/** Fields of the request that the response never carries (`send_email`). */
export function inputOnly(model: BodyModel, response: Schema): string[] {
  return model.fields.filter((name) => !(name in (response.properties ?? {})));
}

// ---------------------------------------------------------------------------------------------
// Query strings

export interface QueryParam {
  /** As sent: `page`, `filter[status]`. */
  key: string;
  /** As a 422 names it: `page`, `filter.status`. */
  errorKey: string;
  schema: Schema;
}

/** The operation's query parameters, keyed as sent (`page`, `filter[status]`) and as a 422 names them (`filter.status`). */
export function queryParams(op: OperationSpec): QueryParam[] {
  return op.parameters
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => ({ key: parameter.name, errorKey: parameter.name.replace(/\[([^\][]*)\]/g, '.$1'), schema: parameter.schema }));
}

const DAY_MS = 86_400_000;
const day = (epochDay: number) => new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
const epochDay = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;
const anyDay = fc.oneof(
  { arbitrary: fc.integer({ min: epochDay('2000-01-01'), max: epochDay('2040-12-31') }), weight: 5 },
  { arbitrary: fc.integer({ min: epochDay('0001-01-01'), max: epochDay('9999-12-31') }), weight: 1 },
);

export function dateRange(from: fc.Arbitrary<number> = anyDay, span: fc.Arbitrary<number> = fc.nat({ max: 60 })): fc.Arbitrary<string> {
  return fc.tuple(from, span).map(([start, length]) => `${day(start)},${day(Math.min(start + length, epochDay('9999-12-31')))}`);
}

/** A valid value for a query parameter, as text, from its schema. */
export function validQueryValue(schema: Schema): fc.Arbitrary<string> {
  const types = typesOf(schema);
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
  if (types.includes('boolean')) return fc.constantFrom('true', 'false');
  if (types.includes('integer')) {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? 1_000_000;
    return fc
      .oneof({ arbitrary: fc.integer({ min, max: Math.min(max, min + 20) }), weight: 4 }, { arbitrary: fc.integer({ min, max }), weight: 1 })
      .map(String);
  }
  if (schema.format === 'date-range') return dateRange();
  if (schema.format === 'card-last4') return cardLast4;
  if (types.includes('string')) return textOf(schema, schema.minLength ?? 0, schema.maxLength ?? 50);
  throw new Error(`no query generator for ${JSON.stringify(schema)}`);
}

/** The last four digits of a card number (`filter[card_last4]`). */
const cardLast4 = fc.stringMatching(/^[0-9]{4}$/);

/** Values that break exactly the rule of one query parameter. */
export function invalidQueryValue(schema: Schema): fc.Arbitrary<string> {
  const types = typesOf(schema);
  const options: fc.Arbitrary<string>[] = [];
  if (schema.enum) {
    const allowed = schema.enum.map(String);
    options.push(
      fc
        .oneof(fc.constantFrom(...allowed.map((value) => value.toLowerCase()), ...allowed.map((value) => `${value} `), ''), fc.string({ maxLength: 10 }))
        .filter((value) => !allowed.includes(value)),
    );
  } else if (types.includes('boolean')) {
    options.push(fc.constantFrom('yes', 'no', '1', '0', 'TRUE', 'False', '', 'null', 'on'));
  } else if (types.includes('integer')) {
    const min = schema.minimum ?? 0;
    const max = schema.maximum;
    options.push(fc.integer({ min: -1_000_000, max: min - 1 }).map(String), fc.constantFrom('abc', '', '1.5', 'null', '\u0661', '\uff11', '9'.repeat(30)));
    if (max !== undefined) options.push(fc.integer({ min: max + 1, max: Number.MAX_SAFE_INTEGER }).map(String));
  } else if (schema.format === 'date-range') {
    options.push(
      anyDay.map(day),
      // Reversed, so the first day is after the second (a range that ends on 9999-12-31 may have collapsed to one day).
      dateRange(anyDay, fc.integer({ min: 1, max: 400 }))
        .filter((range) => range.split(',')[0] !== range.split(',')[1])
        .map((range) => range.split(',').reverse().join(',')),
      dateRange().map((range) => `${range},${range.split(',')[0]!}`),
      dateRange().map((range) => range.replace(',', ';')),
      dateRange()
        .map((range) => range.replace(/-0/g, '-'))
        .filter((range) => /-\d-|-\d(,|$)/.test(range)),
      dateRange().map(arabicIndic),
      fc.constantFrom(
        '',
        ',',
        '2022-02-30,2022-03-01',
        '2022-01-01,2022-13-01',
        '2023-02-29,2023-03-01',
        'today,tomorrow',
        '2022-01-01T00:00:00Z,2022-01-02',
        ' 2022-01-01,2022-01-02',
      ),
    );
  } else if (schema.format === 'card-last4') {
    options.push(
      fc.stringMatching(/^[0-9]{0,3}$/),
      fc.stringMatching(/^[0-9]{5,8}$/),
      // Four characters, one of them not an ASCII digit.
      fc
        .tuple(cardLast4, fc.nat({ max: 3 }), fc.constantFrom('a', 'X', ' ', '-', '.', '+', '\u0000'))
        .map(([digits, at, char]) => `${digits.slice(0, at)}${char}${digits.slice(at + 1)}`),
      cardLast4.map(arabicIndic),
      cardLast4.map(fullwidth),
    );
  } else if (types.includes('string')) {
    const max = schema.maxLength;
    if (max !== undefined) options.push(textOf(schema, max + 1, max + 10));
    if (schema.pattern !== undefined) options.push(insertInto(textOf(schema, 0, (max ?? 50) - 1), fc.constant('\u0000')));
  }
  if (options.length === 0) throw new Error(`no invalid query values for ${JSON.stringify(schema)}`);
  return fc.oneof(...options);
}

/** Encodes one query pair; brackets are sent raw or percent-encoded, both of which clients do. */
export function encodePair(key: string, value: string, rawBrackets: boolean): string {
  const encodedKey = rawBrackets
    ? key
        .split(/([[\]])/)
        .map((part) => (part === '[' || part === ']' ? part : encodeURIComponent(part)))
        .join('')
    : encodeURIComponent(key);
  return `${encodedKey}=${encodeURIComponent(value)}`;
}

export function queryString(pairs: (readonly [string, string])[], rawBrackets: boolean): string {
  return pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => encodePair(key, value, rawBrackets)).join('&')}`;
}

/**
 * Query keys that name Object.prototype members (`constructor`, `toString`, `__proto__`, ...): qs's
 * default parse used to drop them silently (a 200 with unfiltered data), so they are unknown keys
 * like any other here.
 */
export const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype);

/** Unknown query keys shaped like real parameter names, so a 422 can name them exactly. */
export const unknownKey = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/),
  fc.constantFrom('filter_status', 'perpage', 'per-page', 'Page', 'sort_by', 'limit', 'status', 'q', 'search', 'email', 'reference', ...PROTOTYPE_KEYS),
);

/** Anything at all as a query key or value: brackets, dots, percent signs, unicode, prototype names. */
export const junkText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    'filter',
    'filter[]',
    'filter[status][]',
    'page[]',
    '[]',
    'a[b][c][d][e][f][g]',
    'filter[a.b]',
    'a.b',
    '%',
    '%zz',
    '__proto__',
    'constructor',
    'filter[__proto__]',
    'page[0]',
    'filter[limit]',
    'filter[0]',
  ),
  fc.string({ unit: fc.constantFrom('[', ']', '.', '%', '&', '=', '+', '#', 'a', '0', ' ', '\u00e9', '\u{1F600}'), maxLength: 10 }),
);

export { epochDay };
