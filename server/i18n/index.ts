// What payers read, in their language: the payer pages' and payer e-mails' messages live in one
// catalog file per language (catalogs/<locale>.json, ICU MessageFormat: plurals and placeholders),
// read by i18next with its ICU plugin; dates go through Intl in the same language, money through the
// domain's one formatter (`formatMoney`), which writes it alike in every language.
import i18next, { type TFunction } from 'i18next';
import ICU from 'i18next-icu';
import { LOCALES, LOCALE_TAGS, type Locale } from '../domain/locales.js';
import en from './catalogs/en.json' with { type: 'json' };
import ms from './catalogs/ms.json' with { type: 'json' };
import zh from './catalogs/zh.json' with { type: 'json' };

export const CATALOGS: Record<Locale, Record<string, string>> = { en, ms, zh };

/** A key of the catalogs (English is the reference every other catalog must match). */
export type MessageKey = keyof typeof en;

const instance = i18next.createInstance();
void instance.use(ICU).init({
  initAsync: false,
  showSupportNotice: false,
  lng: 'en',
  fallbackLng: false,
  supportedLngs: [...LOCALES],
  // Keys are flat ("pay.title"), written whole; the HTML tag escapes what the pages interpolate.
  keySeparator: false,
  nsSeparator: false,
  interpolation: { escapeValue: false },
  resources: Object.fromEntries(LOCALES.map((locale) => [locale, { translation: CATALOGS[locale] }])),
});

export interface Translator {
  locale: Locale;
  /** The BCP 47 tag for `lang` and Intl. */
  tag: string;
  t(key: MessageKey, values?: Record<string, string | number>): string;
  /** A date and time in the business's time zone. */
  dateTime(iso: string, timeZone: string): string;
}

const translators = new Map<Locale, Translator>();

export function translator(locale: Locale): Translator {
  const known = translators.get(locale);
  if (known) return known;
  const fixed: TFunction = instance.getFixedT(locale);
  const tag = LOCALE_TAGS[locale];
  const made: Translator = {
    locale,
    tag,
    t: (key, values) => fixed(key, values ?? {}) as string,
    dateTime(iso, timeZone) {
      return new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));
    },
  };
  translators.set(locale, made);
  return made;
}
