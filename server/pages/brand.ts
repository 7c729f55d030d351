// What a merchant's brand needs served beside its pages: its logo, with the type read from its bytes
// when it was uploaded and nothing a browser could take for a document, and the stylesheet of its
// brand colour (the pages' CSP admits stylesheets of our own only, no inline style).
import type Koa from 'koa';
import { brandColours } from '../domain/brand.js';
import { parseLogoFile } from '../domain/payer-urls.js';
import { logoForPayer } from '../usecases/merchant/business-profile.js';
import type { PageDeps } from './deps.js';

export function logoRoute(deps: PageDeps): Koa.Middleware {
  return async (koa) => {
    const named = parseLogoFile(String(koa.params.file ?? ''));
    const logo = named ? await logoForPayer(deps, named.businessId, named.sha) : undefined;
    koa.set({ 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; sandbox", 'Cross-Origin-Resource-Policy': 'cross-origin' });
    if (!logo) {
      koa.status = 404;
      koa.type = 'text/plain; charset=utf-8';
      koa.body = 'Not found';
      return;
    }
    // The address names the digest: a new logo is a new address, so this one never changes.
    koa.set('Cache-Control', 'public, max-age=31536000, immutable');
    koa.type = logo.contentType;
    koa.body = logo.bytes;
  };
}

/** `/assets/brand/1f5eff.css`: the button colours of a colour the profile would accept. */
export const brandStylesheetRoute: Koa.Middleware = (koa) => {
  const match = /^([0-9a-f]{6})\.css$/.exec(String(koa.params.file ?? ''));
  const brand = match ? brandColours(`#${match[1]}`) : undefined;
  koa.set('X-Content-Type-Options', 'nosniff');
  if (!brand?.ok) {
    koa.status = 404;
    koa.type = 'text/plain; charset=utf-8';
    koa.body = 'Not found';
    return;
  }
  koa.set('Cache-Control', 'public, max-age=31536000, immutable');
  koa.type = 'text/css; charset=utf-8';
  koa.body = `:root{--brand:${brand.colour};--on-brand:${brand.text}}\n`;
};
