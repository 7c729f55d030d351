import { describe, expect, it } from 'vitest';
import { laravelInput, trimText } from '../../server/domain/input.js';

describe("Laravel's input middleware", () => {
  it('trims spaces, tabs, line breaks and vertical tabs at both ends, as PHP trim() does', () => {
    expect(trimText('  Invoice 1001 \t\r\n\v')).toBe('Invoice 1001');
    expect(trimText('a  b')).toBe('a  b');
    expect(trimText('   ')).toBe('');
    expect(trimText('x')).toBe('x');
  });

  it('keeps NUL and non-ASCII spaces, which PHP trim() does not strip either or which must stay refusable', () => {
    expect(trimText('\u0000 a \u0000')).toBe('\u0000 a \u0000');
    expect(trimText('\u00a0a\u00a0')).toBe('\u00a0a\u00a0');
  });

  it('is linear in the length of the text, whatever it holds', () => {
    const text = `1${' '.repeat(200_000)}x`;
    expect(trimText(text)).toBe(text);
    expect(trimText(`${' '.repeat(200_000)}x${' '.repeat(200_000)}`)).toBe('x');
  });

  it('turns empty strings into null and trims every string of a body, leaving other values alone', () => {
    expect(
      laravelInput({ title: '   ', description: '', email: ' payer@example.com ', amount: 1000, send_email: false, phone_no: null, tags: [' a ', ''] }),
    ).toEqual({
      title: null,
      description: null,
      email: 'payer@example.com',
      amount: 1000,
      send_email: false,
      phone_no: null,
      tags: ['a', null],
    });
    expect(laravelInput(' x ')).toBe('x');
    expect(laravelInput(undefined)).toBeUndefined();
  });
});

describe('a body nested deeper than any stack', () => {
  it('is copied without recursion, however deep: strings trimmed at the bottom, the shape kept', () => {
    const depth = 200_000;
    let body: unknown = ['  deepest  ', ''];
    for (let i = 0; i < depth; i += 1) body = i % 2 ? { inner: body, title: ' t ' } : [body];
    let copied = laravelInput(body);
    let levels = 0;
    while (levels < depth) {
      copied = Array.isArray(copied) ? copied[0] : (copied as { inner: unknown }).inner;
      levels += 1;
    }
    expect(copied).toEqual(['deepest', null]);
    expect((laravelInput({ a: { inner: [], title: ' t ' } }) as { a: { title: string } }).a.title).toBe('t');
  });

  it('keeps the order of arrays and members, and a __proto__ member as an own key', () => {
    const body = JSON.parse('{"b": [" 1", [" 2 ", {"__proto__": " x "}], ""], "a": {"z": 1, "y": " "}}') as unknown;
    const copied = laravelInput(body) as Record<string, unknown>;
    expect(JSON.stringify(copied)).toBe('{"b":["1",["2",{"__proto__":"x"}],null],"a":{"z":1,"y":null}}');
    expect(Object.getPrototypeOf((copied.b as unknown[])[1] as object)).toBe(Array.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
