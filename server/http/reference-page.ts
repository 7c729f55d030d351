// The rendered reference (/docs, Redoc, built by `npm run generate`) as it is served. It is one page of
// inline scripts on the origin of the console and the API, so a script injected into it would run beside
// the session cookie: its policy lets exactly its own scripts run (by their hashes, taken from the very
// bytes served), fetches nothing from elsewhere, and no other site may frame it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';

/** The text of each inline <script> (one without `src`), exactly as a browser hashes it. */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)]
    .filter(([, attributes]) => !/\bsrc\s*=/i.test(attributes!))
    .map(([, , text]) => text!);
}

/**
 * Styles are allowed inline (Redoc's styled-components write <style> elements and style attributes as
 * it renders); scripts are not, beyond the page's own. Its fonts and its attribution logo are data: URLs
 * inside it. Eval stays refused: the search index then runs on the page rather than in a worker.
 */
export function referencePolicy(html: string): string {
  const hashes = inlineScripts(html).map((text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface ReferencePage {
  body: Buffer;
  headers: Record<string, string>;
}

/** The page at `path` with its headers, read the first time it is asked for and kept; undefined while it has not been built. */
export function referencePage(path: string): () => ReferencePage | undefined {
  let page: ReferencePage | undefined;
  return () => {
    if (page || !existsSync(path)) return page;
    const body = readFileSync(path);
    page = {
      body,
      headers: {
        'Content-Security-Policy': referencePolicy(body.toString('utf8')),
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
        'Referrer-Policy': 'same-origin',
      },
    };
    return page;
  };
}
