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
