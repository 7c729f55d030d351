// The languages payers are served in, and which one a payer gets: `?lang=`, else the language they
// chose before (the switcher's cookie), else their browser's Accept-Language, else the link's own
// `locale`, else the business's default, else English.

export const LOCALES = ['en', 'ms', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** Each language named in itself, as the switcher offers it. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', ms: 'Bahasa Melayu', zh: '简体中文' };

/** BCP 47 tags for Intl and the page's `lang`. */
export const LOCALE_TAGS: Record<Locale, string> = { en: 'en-MY', ms: 'ms-MY', zh: 'zh-Hans-MY' };

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * One language range of ours, or undefined. `zh` is served in Simplified Chinese, and every Chinese
 * range takes it, Traditional script and the regions that write it included (zh-TW, zh-HK, zh-Hant):
 * a reader of Traditional characters reads Simplified far more easily than English.
 */
function ourLocale(range: string): Locale | undefined {
  const tag = range.trim().toLowerCase();
  const primary = tag.split('-')[0];
  if (primary === 'ms' || primary === 'zsm' || primary === 'en') return primary === 'en' ? 'en' : 'ms';
  if (primary === 'zh') return 'zh';
  return undefined;
}

/** The payer's preferred language of ours from Accept-Language (quality values honoured), or undefined. */
export function fromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranges = header
    .slice(0, 500)
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [range = '', ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(Boolean);
      return { range, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { range } of ranges) {
    const locale = ourLocale(range);
    if (locale) return locale;
  }
  return undefined;
}

export interface LocaleSources {
  query?: unknown;
  cookie?: unknown;
  acceptLanguage?: string;
  link?: string | null;
  business?: string | null;
}

/** A single tag (a link's `locale`, a `?lang=`) as one of ours: `zh-TW` is Chinese as `zh` is. */
function asLocale(value: unknown): Locale | undefined {
  return typeof value === 'string' && value.length <= 35 ? ourLocale(value) : undefined;
}

export function chooseLocale(sources: LocaleSources): Locale {
  return (
    asLocale(sources.query) ??
    (isLocale(sources.cookie) ? sources.cookie : undefined) ??
    fromAcceptLanguage(sources.acceptLanguage) ??
    asLocale(sources.link) ??
    asLocale(sources.business) ??
    DEFAULT_LOCALE
  );
}

/** What e-mails are written in: the link's language, else the business's default. */
export function emailLocale(link: string | null | undefined, business: string | null | undefined): Locale {
  return asLocale(link) ?? asLocale(business) ?? DEFAULT_LOCALE;
}
