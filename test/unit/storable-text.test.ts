// Text the service stores must read back exactly as sent on both databases: PostgreSQL refuses NUL in
// text (a 500 before this rule), and a lone UTF-16 surrogate is turned into U+FFFD on the way to
// either database (a record that no longer matches what was sent). The property suites found both.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isStorableText } from '../../server/domain/text.js';
import { isHttpUrl } from '../../server/domain/urls.js';
import { SPEC_PATH } from '../../server/file-locations.js';

const NOT_STORABLE = ['\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF'];

describe('isHttpUrl: control characters and lone surrogates', () => {
  it.each(['\u0000', '\u0001', '\u001f', '\u007f', '\uD800', '\uDFFF'])(
    'rejects %j in the path, query or fragment, which the URL parser would percent-encode',
    (char) => {
      for (const url of [`https://merchant.example.com/a${char}b`, `https://merchant.example.com/?q=${char}`, `https://merchant.example.com/#${char}`]) {
        // The parser alone would accept it: the rule has to be ours.
        expect(() => new URL(url)).not.toThrow();
        expect(isHttpUrl(url)).toBe(false);
      }
    },
  );

  it('accepts characters outside the Basic Multilingual Plane, written as surrogate pairs', () => {
    expect(isHttpUrl('https://merchant.example.com/thanks/\u{1F600}?q=\u{10FFFF}')).toBe(true);
    expect(isHttpUrl('https://merchant.example.com/caf\u00e9')).toBe(true);
  });
});

describe('the text rule of openapi.yaml: the storable-text format, and a pattern tools can copy', () => {
  const { schemas, parameters } = (
    parse(readFileSync(SPEC_PATH, 'utf8')) as {
      components: {
        schemas: Record<string, { properties: Record<string, { pattern?: string; format?: string }> }>;
        parameters: Record<string, { schema: { pattern?: string; format?: string } }>;
      };
    }
  ).components;
  const fields = [
    schemas.TokenCreate!.properties.title!,
    schemas.PaymentLinkWrite!.properties.description!,
    schemas.OpenPaymentLinkUpdate!.properties.reference_2!,
    parameters.EmailFilter!.schema,
  ];

  it('is the same format and pattern wherever free text is accepted', () => {
    expect(new Set(fields.map((field) => field.format))).toEqual(new Set(['storable-text']));
    expect(new Set(fields.map((field) => field.pattern)).size).toBe(1);
    // Generators copy patterns into source code: no \u escape (they turn it into the raw character).
    expect(fields[0]!.pattern).not.toMatch(/\\u/);
  });

  it('isStorableText accepts any text that round-trips: ASCII, accents, CJK, emoji, other control characters', () => {
    for (const value of ['', 'Invoice 1001', 'caf\u00e9', '\u4e2d\u6587', '\u{1F600}\u{1F600}', 'a\u0001b\tc\n', '\u{10FFFF}', '\uFFFD']) {
      expect(isStorableText(value), JSON.stringify(value)).toBe(true);
    }
  });

  it('isStorableText rejects NUL and unpaired surrogates wherever they are', () => {
    for (const char of NOT_STORABLE) {
      for (const value of [char, `a${char}`, `${char}a`, `a${char}b`, `\u{1F600}${char}`]) expect(isStorableText(value), JSON.stringify(value)).toBe(false);
    }
    // Reversed halves are two lone surrogates, not a pair.
    expect(isStorableText('\uDE00\uD83D')).toBe(false);
  });

  // JSON Schema asks for Unicode-aware patterns, but a client may compile them without the u flag.
  for (const flags of ['u', '']) {
    it(`the pattern, compiled with flags ${JSON.stringify(flags)}, refuses NUL and accepts any other text`, () => {
      const text = new RegExp(fields[0]!.pattern!, flags);
      for (const value of ['a\u0000b', '\u0000']) expect(text.test(value)).toBe(false);
      for (const value of ['Invoice 1001', 'caf\u00e9', '\u{1F600}', 'a\u0001b']) expect(text.test(value)).toBe(true);
    });
  }
});
