// The merchant console (console/, a React app built by Vite) served at /console: files of its build
// through @koa/send, the client routes answered with its index.html, and a page that says how to build
// it when the build is missing (a server-only install) rather than a crash or a bare 404.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type Koa from 'koa';

import { CONSOLE_PATH } from './domain/sessions.js';

/**
 * No inline script and nothing from elsewhere. Mantine writes its theme as CSS variables in a <style>
 * element and in style attributes at run time, which `style-src 'self'` alone would block: styles, not
 * scripts, are allowed inline.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite names every file it puts in assets/ after its content's hash. */
const HASHED_ASSET = /^\/assets\/[\w.-]{1,200}$/;

function setHeaders(koa: Koa.Context): void {
  koa.set({
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
  });
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The console is not built</title></head>
<body><main><h1>The console is not built</h1>
<p>This install has no console/dist. Build it with <code>npm ci</code> at the project root (it builds the console),
or <code>npm run build -w console</code>, then restart the service. The API at /api works without it.</p></main></body></html>
`;

/** @koa/send, loaded by the first request for the console (or by the warm-up once listening), not at start-up. */
export const loadSend = () => import('@koa/send');

/** `/` and everything under /console; other paths go on to the payer pages. */
export function consoleRoutes(options: { root: string }): Koa.Middleware {
  const index = join(options.root, 'index.html');
  return async (koa, next) => {
    if (koa.path === '/' && (koa.method === 'GET' || koa.method === 'HEAD')) {
      koa.redirect(`${CONSOLE_PATH}/`);
      return;
    }
    if (koa.path !== CONSOLE_PATH && !koa.path.startsWith(`${CONSOLE_PATH}/`)) return next();
    if (koa.method !== 'GET' && koa.method !== 'HEAD') {
      koa.status = 405;
      koa.set('Allow', 'GET, HEAD');
      return;
    }
    setHeaders(koa);
    if (!existsSync(index)) {
      koa.status = 503;
      koa.set('Cache-Control', 'no-store');
      koa.type = 'text/html; charset=utf-8';
      koa.body = NOT_BUILT;
      return;
    }
    const { send } = await loadSend();
    const file = koa.path.slice(CONSOLE_PATH.length) || '/';
    if (HASHED_ASSET.test(file)) {
      // A hashed name changes with its content: a year, and never asked again.
      koa.set('Cache-Control', 'public, max-age=31536000, immutable');
      const served = await send(koa, file, { root: options.root, gzip: false, brotli: false }).catch((error: { status?: number }) => {
        if (error.status === 404) return undefined;
        throw error;
      });
      if (served) return;
      koa.status = 404;
      koa.set('Cache-Control', 'no-store');
      koa.type = 'text/plain; charset=utf-8';
      koa.body = 'Not found';
      return;
    }
    // Any other path is one of the app's own routes (or a file of the build's root, such as its icon):
    // index.html, asked again every time so a new build is picked up at once.
    const rootFile = /^\/[\w-]+\.(?:ico|svg|png|txt|webmanifest)$/.test(file) && existsSync(join(options.root, file)) ? file : '/index.html';
    koa.set('Cache-Control', 'no-cache');
    await send(koa, rootFile, { root: options.root, gzip: false, brotli: false });
  };
}
