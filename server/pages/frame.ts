// What every payer page has around its body: the merchant's name and logo at the top, the page in the
// payer's language with a switcher that works without JavaScript (plain links; the choice is kept in
// a cookie), the merchant's brand colours and how to reach the merchant.
import type Koa from 'koa';
import { brandStylesheetPath } from '../domain/payer-urls.js';
import { LOCALES, LOCALE_NAMES, LOCALE_TAGS, chooseLocale, isLocale } from '../domain/locales.js';
import { html, page, type Html } from '../html.js';
import { translator, type Translator } from '../i18n/index.js';
import type { Merchant } from '../usecases/merchant/business-profile.js';
import { setPageSecurityHeaders } from './headers.js';

export const LANGUAGE_COOKIE = 'payer_lang';
const YEAR_SECONDS = 365 * 24 * 60 * 60;

/**
 * The payer's language: `?lang=` (or the `lang` a form of ours posts back), then the language they
 * chose before, then their browser's, then the link's, then the business's default. A `?lang=`
 * is remembered for the next pages.
 */
export function payerTranslator(koa: Koa.Context, link?: string | null, merchant?: Merchant | null): Translator {
  const asked = koa.query.lang ?? (koa.request.body as Record<string, unknown> | undefined)?.lang;
  if (koa.method === 'GET' && isLocale(asked)) {
    koa.cookies.set(LANGUAGE_COOKIE, asked, { httpOnly: true, sameSite: 'lax', maxAge: YEAR_SECONDS * 1000, overwrite: true, secure: koa.secure });
  }
  return translator(
    chooseLocale({
      query: asked,
      cookie: koa.cookies.get(LANGUAGE_COOKIE),
      acceptLanguage: koa.get('accept-language'),
      link,
      business: merchant?.defaultLocale,
    }),
  );
}

/** The same page in each language: links to this address with `lang` set. */
function languageSwitcher(koa: Koa.Context, tr: Translator, keepQuery: boolean): Html {
  const links = LOCALES.map((locale) => {
    const query = new URLSearchParams(keepQuery ? koa.querystring : '');
    query.set('lang', locale);
    const current = locale === tr.locale;
    return html`<li><a href="${`${koa.path}?${query.toString()}`}" lang="${LOCALE_TAGS[locale]}" hreflang="${LOCALE_TAGS[locale]}"${current ? html` aria-current="true"` : ''}>${LOCALE_NAMES[locale]}</a></li>`;
  });
  return html`<nav class="languages" aria-label="${tr.t('frame.language')}"><ul>${links}</ul></nav>`;
}

function merchantHeader(merchant: Merchant | null | undefined): Html {
  if (!merchant) return html``;
  // The name is written beside the logo, so the image adds nothing for a screen reader.
  return html`<header class="merchant">${merchant.logoPath ? html`<img src="${merchant.logoPath}" alt="">` : ''}<p class="merchant-name">${merchant.name}</p></header>`;
}

function contact(merchant: Merchant | null | undefined, tr: Translator): Html {
  if (!merchant || (!merchant.supportEmail && !merchant.supportPhone)) return html``;
  return html`<p class="contact muted">${tr.t('frame.contact', { merchant: merchant.name })} ${
    merchant.supportEmail ? html`<a href="${`mailto:${merchant.supportEmail}`}">${merchant.supportEmail}</a>` : ''
  }${merchant.supportEmail && merchant.supportPhone ? ' · ' : ''}${
    merchant.supportPhone ? html`<a href="${`tel:${merchant.supportPhone.replace(/[^+0-9]/g, '')}`}">${merchant.supportPhone}</a>` : ''
  }</p>`;
}

export interface PayerPage {
  status: number;
  title: string;
  body: Html;
  tr: Translator;
  merchant?: Merchant | null;
  /** Origins the page's form may post and be redirected to (headers.ts). */
  origins?: string[];
  /** Whether the switcher's links keep this address's query (not where it names something the page does not show). */
  keepQuery?: boolean;
}

/** Answers with a payer page in its frame. */
export function renderPayerPage(koa: Koa.Context, { status, title, body, tr, merchant, origins = [], keepQuery = true }: PayerPage): void {
  setPageSecurityHeaders(koa, origins);
  koa.set('Content-Language', tr.tag);
  koa.set('Vary', 'Accept-Language, Cookie');
  koa.status = status;
  koa.type = 'text/html; charset=utf-8';
  koa.body = page(title, html`${body}${contact(merchant, tr)}`, {
    lang: tr.tag,
    stylesheets: merchant?.brand ? [brandStylesheetPath(merchant.brand.colour)] : [],
    header: html`${merchantHeader(merchant)}${languageSwitcher(koa, tr, keepQuery)}`,
    footer: html`${tr.t('frame.footer')}`,
  });
}

/** A page's title: the merchant's name after what the page is about. */
export function titled(heading: string, merchant: Merchant | null | undefined): string {
  return merchant ? `${heading} – ${merchant.name}` : heading;
}
