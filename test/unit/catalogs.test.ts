// The payer-facing catalogs (server/i18n/catalogs): every language has every key English has and no
// other, each message keeps English's placeholders, and every key is used by the server's code, so a
// page cannot fall back to a key's name and a catalog does not carry text nobody reads.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../server/domain/locales.js';
import { CATALOGS, translator } from '../../server/i18n/index.js';

const SERVER = join(import.meta.dirname, '..', '..', 'server');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

/** The argument names a message uses (`{merchant}`, `{minutes, plural, ...}`). */
function placeholders(message: string): string[] {
  const names = new Set<string>();
  const walk = (elements: unknown[]) => {
    for (const element of elements as { type: number; value?: string; options?: Record<string, { value: unknown[] }> }[]) {
      if (element.type !== 0 && element.type !== 7 && element.value) names.add(element.value);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(message, 'en').getAst());
  return [...names].sort();
}

describe('the catalogs', () => {
  const english = Object.keys(CATALOGS.en).sort();

  it.each(LOCALES.filter((l) => l !== 'en'))('%s has exactly the keys English has', (locale) => {
    expect(Object.keys(CATALOGS[locale]).sort()).toEqual(english);
  });

  it.each(LOCALES)('%s: every message parses and keeps the placeholders English has', (locale) => {
    for (const key of english) expect(placeholders(CATALOGS[locale][key]!), `${locale} ${key}`).toEqual(placeholders(CATALOGS.en[key]!));
  });

  it('every key is used by the server, and nothing asks for a key the catalogs lack', () => {
    const code = sources(SERVER).join('\n');
    const unused = english.filter((key) => !code.includes(`'${key}'`));
    expect(unused).toEqual([]);
    const asked = [...code.matchAll(/\b(?:t|tr\.t|translate)\('([a-z_]+(?:\.[a-z_]+)+)'/g)].map((m) => m[1]!);
    expect(asked.length).toBeGreaterThan(20);
    expect(asked.filter((key) => !english.includes(key))).toEqual([]);
  });

  it('writes plurals in each language', () => {
    expect(translator('en').t('limit.attempts.message', { minutes: 1 })).toContain('Wait a minute');
    expect(translator('en').t('limit.attempts.message', { minutes: 5 })).toContain('Wait 5 minutes');
    expect(translator('ms').t('limit.attempts.message', { minutes: 5 })).toContain('Tunggu 5 minit');
    expect(translator('zh').t('limit.attempts.message', { minutes: 5 })).toContain('5 分钟');
    expect(translator('zh').t('pay.title', { merchant: 'Kedai Ah Seng' })).toBe('向Kedai Ah Seng付款');
  });
});
