// Where payers go: every address of the hosted pages, as the router serves them, the API hands them
// out, e-mails carry them, an acquirer sends payers back to them and the pages link to each other.
// Nothing else spells them.
import { withQuery } from './urls.js';

/** The pages' routes, as the router matches them. */
export const PAYER_ROUTES = {
  pay: '/payment/pay',
  openLinkPay: '/payment/open-link/pay',
  poster: '/payment/open-link/poster',
  thankYou: '/payment/thank-you',
  /** Back from an acquirer's page (Stripe Checkout) after paying a link. */
  return: '/payment/return',
  activation: '/tokenization/activation/:token',
  /** Back from an acquirer's page after saving a card. */
  activationReturn: '/tokenization/activation/:token/return',
  /** A merchant's logo: `<business id>-<first 16 hex of its SHA-256>`, so a new logo is a new address. */
  logo: '/assets/logos/:file',
  /** The button colours of a brand colour (`/assets/brand/1f5eff.css`). */
  brandStylesheet: '/assets/brand/:file',
} as const;

export type LinkKind = 'payment_link' | 'open_payment_link';

/** A link's pay page, from the site's root. */
export function payPath(kind: LinkKind, linkId: string): string {
  return `${kind === 'payment_link' ? PAYER_ROUTES.pay : PAYER_ROUTES.openLinkPay}?id=${linkId}`;
}

export function paymentUrl(publicUrl: string, paymentLinkId: string): string {
  return `${publicUrl}${payPath('payment_link', paymentLinkId)}`;
}

export function openPaymentUrl(publicUrl: string, openPaymentLinkId: string): string {
  return `${publicUrl}${payPath('open_payment_link', openPaymentLinkId)}`;
}

export function posterPath(openPaymentLinkId: string): string {
  return `${PAYER_ROUTES.poster}?id=${openPaymentLinkId}`;
}

export function thankYouUrl(publicUrl: string, query: Record<string, string>): string {
  return withQuery(`${publicUrl}${PAYER_ROUTES.thankYou}`, query);
}

export function returnUrl(publicUrl: string, query?: Record<string, string>): string {
  const url = `${publicUrl}${PAYER_ROUTES.return}`;
  return query ? withQuery(url, query) : url;
}

/** A token's activation page, from the site's root. */
export function activationPath(token: string): string {
  return PAYER_ROUTES.activation.replace(':token', token);
}

export function activationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${activationPath(token)}`;
}

export function activationReturnUrl(publicUrl: string, token: string, query: Record<string, string>): string {
  return withQuery(`${publicUrl}${PAYER_ROUTES.activationReturn.replace(':token', token)}`, query);
}

/** A merchant's logo, from the site's root. */
export function logoPath(businessId: number, sha256: string): string {
  return PAYER_ROUTES.logo.replace(':file', `${businessId}-${sha256.slice(0, 16)}`);
}

/** The business id and digest prefix a logo's address names, or undefined. */
export function parseLogoFile(file: string): { businessId: number; sha: string } | undefined {
  const match = /^(\d{1,10})-([0-9a-f]{16})$/.exec(file);
  return match ? { businessId: Number(match[1]), sha: match[2]! } : undefined;
}

/** The stylesheet of a brand colour (`#1f5eff`), from the site's root. */
export function brandStylesheetPath(colour: string): string {
  return PAYER_ROUTES.brandStylesheet.replace(':file', `${colour.slice(1)}.css`);
}
