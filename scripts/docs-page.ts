// The rendered reference (/docs) as `redocly build-docs` makes it, made to stand alone: our own page
// template (no icon to fetch), and Redoc's attribution logo drawn here instead of loaded from Redocly's
// CDN, so the page asks nothing of any host but the service (its CSP allows no other).
import { join } from 'node:path';

export const DOCS_TEMPLATE = join(import.meta.dirname, 'docs-template.hbs');

// White on Redocly's blue, so each reads on the sidebar's light and dark themes alike.
const badge = (width: number, text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="14" viewBox="0 0 ${width} 14"><rect width="${width}" height="14" rx="3" fill="#0044d4"/>` +
  `<text x="${width / 2}" y="10.5" font-family="system-ui,sans-serif" font-size="10" font-weight="700" text-anchor="middle" fill="#fff">${text}</text></svg>`;

/**
 * Redoc 3 has no option to hide or move the "API docs by Redocly" logo in its sidebar: it is an <img>
 * with these two CDN addresses (the full mark, and the small one of a collapsed sidebar). Each is
 * replaced by an SVG of our own drawing as a data: URL, which the browser does not fetch.
 */
export const REDOCLY_LOGOS: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': badge(50, 'Redocly'),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': badge(14, 'R'),
};

const dataUrl = (svg: string) => `data:image/svg+xml,${encodeURIComponent(svg)}`;

/** The page with Redocly's logos drawn in; a Redoc that names them otherwise fails the build rather than the page. */
export function standalone(html: string): string {
  let page = html;
  for (const [address, svg] of Object.entries(REDOCLY_LOGOS)) {
    if (!page.includes(address)) throw new Error(`generate: Redoc no longer loads its logo from ${address}; see scripts/docs-page.ts`);
    page = page.split(address).join(dataUrl(svg));
  }
  return page;
}
