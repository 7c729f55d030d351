// Pure rules of the merchant's brand and the payer's language: a brand colour's button colours (WCAG contrast), a logo's type from its
// bytes, and which language a payer gets.
import { describe, expect, it } from 'vitest';
import { brandColours, contrastRatio, sniffLogoType } from '../../server/domain/brand.js';
import { chooseLocale, emailLocale, fromAcceptLanguage } from '../../server/domain/locales.js';

describe('brand colours', () => {
  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#1f5eff', '#ffffff')).toBeGreaterThan(4.5);
  });

  it('puts white text on dark colours and near-black on mid tones, each at 4.5:1 or more, and refuses pale ones', () => {
    for (const colour of ['#1f5eff', '#0b6e4f', '#e07000', '#c62828', '#777', '#00897b']) {
      const brand = brandColours(colour);
      expect(brand.ok).toBe(true);
      if (!brand.ok) continue;
      expect(contrastRatio(brand.colour, brand.text)).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(brand.colour, '#ffffff')).toBeGreaterThanOrEqual(3);
    }
    expect(brandColours('#777')).toMatchObject({ colour: '#777777', text: '#000000' });
    expect(brandColours('#1f5eff')).toMatchObject({ text: '#ffffff' });
    expect(brandColours('#e07000')).toMatchObject({ text: '#000000' });
    const pale = brandColours('#ffd400');
    expect(pale.ok).toBe(false);
    expect(!pale.ok && pale.reason).toMatch(/#ffd400 has 1\.\d\d:1/);
    expect(brandColours('red').ok).toBe(false);
  });
});

describe('logo types', () => {
  it('reads PNG, JPEG and WebP from their first bytes, nothing else', () => {
    expect(sniffLogoType(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe('image/png');
    expect(sniffLogoType(Buffer.from('ffd8ffe000104a464946', 'hex'))).toBe('image/jpeg');
    expect(sniffLogoType(Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('image/webp');
    expect(sniffLogoType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(sniffLogoType(Buffer.from('GIF89a'))).toBeUndefined();
    expect(sniffLogoType(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('the payer language', () => {
  it('reads Accept-Language by quality, serves every Chinese range in Chinese, and ignores languages we do not serve', () => {
    expect(fromAcceptLanguage('ms')).toBe('ms');
    expect(fromAcceptLanguage('zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh');
    expect(fromAcceptLanguage('fr-FR, en;q=0.5, ms;q=0.7')).toBe('ms');
    expect(fromAcceptLanguage('zh-TW')).toBe('zh');
    expect(fromAcceptLanguage('zh-HK, en;q=0.8')).toBe('zh');
    expect(fromAcceptLanguage('zh-Hant-MY, en;q=0.1')).toBe('zh');
    expect(fromAcceptLanguage('zh-SG')).toBe('zh');
    expect(fromAcceptLanguage('zh-Hant-TW;q=0.9, fr')).toBe('zh');
    expect(fromAcceptLanguage('en, zh-TW;q=0.9')).toBe('en');
    expect(fromAcceptLanguage('de, *;q=0.1')).toBeUndefined();
    expect(fromAcceptLanguage('ms;q=0, en')).toBe('en');
  });

  it('takes ?lang=, then the remembered choice, then Accept-Language, then the link, then the business', () => {
    const all = { query: 'zh', cookie: 'ms', acceptLanguage: 'en', link: 'ms', business: 'zh' };
    expect(chooseLocale(all)).toBe('zh');
    expect(chooseLocale({ ...all, query: 'xx' })).toBe('ms');
    expect(chooseLocale({ ...all, query: undefined, cookie: undefined })).toBe('en');
    expect(chooseLocale({ link: 'ms', business: 'zh', acceptLanguage: 'fr' })).toBe('ms');
    expect(chooseLocale({ link: null, business: 'zh' })).toBe('zh');
    expect(chooseLocale({})).toBe('en');
    expect(emailLocale(null, 'ms')).toBe('ms');
    expect(emailLocale('zh', 'ms')).toBe('zh');
    expect(emailLocale(undefined, undefined)).toBe('en');
  });

  it('reads a Chinese tag of any script or region, wherever it comes from, as the Chinese page', () => {
    for (const tag of ['zh-TW', 'zh-HK', 'zh-Hant', 'zh-SG', 'zh-Hans-CN', 'ZH-tw']) {
      expect(chooseLocale({ link: tag }), `link ${tag}`).toBe('zh');
      expect(chooseLocale({ business: tag }), `business ${tag}`).toBe('zh');
      expect(chooseLocale({ query: tag, acceptLanguage: 'ms' }), `?lang=${tag}`).toBe('zh');
      expect(chooseLocale({ acceptLanguage: tag, link: 'ms' }), `Accept-Language ${tag}`).toBe('zh');
      expect(emailLocale(tag, 'ms'), `e-mail ${tag}`).toBe('zh');
    }
    expect(chooseLocale({ link: 'ms-MY' })).toBe('ms');
    expect(chooseLocale({ link: 'fr-FR', business: 'zh-TW' })).toBe('zh');
    expect(chooseLocale({ link: 'x'.repeat(100) })).toBe('en');
  });
});
