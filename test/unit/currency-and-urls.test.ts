import { describe, expect, it } from 'vitest';
import { isCurrencyCode } from '../../server/domain/currency.js';
import { URL_MAX_LENGTH, isHttpUrl, withQuery } from '../../server/domain/urls.js';

describe('isCurrencyCode: a current ISO 4217 code a payer can pay in, upper case', () => {
  it.each(['MYR', 'SGD', 'USD', 'EUR', 'JPY', 'IDR'])('accepts %s', (code) => {
    expect(isCurrencyCode(code)).toBe(true);
  });

  it.each(['myr', 'Myr', 'usd'])('rejects lower or mixed case %j', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });

  it.each(['ABC', 'ZZZ', 'XXX'])('rejects the code %j that names no currency', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });

  it.each(['XDR', 'XSU'])('rejects the accounting unit %s', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });

  it.each(['DEM', 'FRF', 'ITL'])('rejects the withdrawn currency %s', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });

  it.each(['', 'MY', 'MYRR', ' MYR', 'MYR ', 'M Y'])('rejects the malformed value %j', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });
});

describe('isHttpUrl: an absolute http(s) URL with a host, at most 2048 characters', () => {
  it.each([
    'http://merchant.example.com',
    'https://merchant.example.com/thanks',
    'https://merchant.example.com:8443/invoices/1001/paid?ref=a&x=1#top',
    'HTTPS://MERCHANT.EXAMPLE.COM/',
    'http://localhost:3000/thank-you',
    'http://127.0.0.1/x',
    'http://[::1]:8080/',
  ])('accepts %s', (url) => {
    expect(isHttpUrl(url)).toBe(true);
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript://example.com/%0Aalert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'ftp://example.com/file',
    'mailto:payer@example.com',
  ])('rejects the non-http scheme in %s', (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });

  it.each(['/thanks', 'thanks', '//merchant.example.com/thanks', 'merchant.example.com/thanks', '', '?a=1'])('rejects the relative URL %j', (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });

  it.each(['http://', 'https://', 'http:/merchant.example.com', 'http:merchant.example.com', 'http:\\\\merchant.example.com'])(
    'rejects %j, which has no proper host part',
    (url) => {
      expect(isHttpUrl(url)).toBe(false);
    },
  );

  it.each([
    ' https://merchant.example.com',
    'https://merchant.example.com ',
    'https://merchant.example.com/a b',
    'https://merchant.example.com/\n',
    '\thttps://merchant.example.com',
  ])('rejects whitespace anywhere: %j', (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });

  it('accepts exactly 2048 characters and rejects 2049', () => {
    const base = 'https://merchant.example.com/';
    const at = base + 'a'.repeat(URL_MAX_LENGTH - base.length);
    expect(at).toHaveLength(2048);
    expect(isHttpUrl(at)).toBe(true);
    expect(isHttpUrl(at + 'a')).toBe(false);
  });
});

describe('withQuery: adds the result parameters to a merchant redirect_url', () => {
  it('adds parameters to a URL without a query', () => {
    expect(withQuery('https://merchant.example.com/thanks', { payment_id: 'p1', payment_status: '1' })).toBe(
      'https://merchant.example.com/thanks?payment_id=p1&payment_status=1',
    );
  });

  it('keeps the parameters the URL already carries, in order, and appends ours', () => {
    expect(withQuery('https://merchant.example.com/invoices/1001/paid?ref=INV-1001&lang=en', { payment_id: 'p1' })).toBe(
      'https://merchant.example.com/invoices/1001/paid?ref=INV-1001&lang=en&payment_id=p1',
    );
  });

  it('replaces a parameter of the same name instead of duplicating it', () => {
    const url = new URL(withQuery('https://merchant.example.com/thanks?payment_status=9&keep=1', { payment_status: '1' }));
    expect(url.searchParams.getAll('payment_status')).toEqual(['1']);
    expect(url.searchParams.get('keep')).toBe('1');
  });

  it('keeps the fragment after the query', () => {
    expect(withQuery('https://merchant.example.com/thanks?a=1#done', { payment_id: 'p1' })).toBe('https://merchant.example.com/thanks?a=1&payment_id=p1#done');
  });

  it('encodes values so that they cannot add parameters of their own', () => {
    const url = new URL(withQuery('https://merchant.example.com/thanks', { token_id: 'a&admin=1 b' }));
    expect(url.searchParams.get('token_id')).toBe('a&admin=1 b');
    expect(url.searchParams.has('admin')).toBe(false);
  });
});
