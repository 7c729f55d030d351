// /console as the service serves it: the build's files with their cache headers, the app's routes
// answered with index.html, its CSP, `/` sent there, and a page saying how to build it when it is missing.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { useService } from '../support/service.js';

function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-build-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Console</title><script type="module" src="/console/assets/index-AbC123xy.js"></script>');
  writeFileSync(join(dir, 'assets', 'index-AbC123xy.js'), 'console.log("app")');
  return dir;
}

const get = (url: string) => fetch(url, { redirect: 'manual' });

describe('with a build', () => {
  const t = useService(() => ({ consoleDir: fakeBuild() }));

  test('/ redirects to the console', async () => {
    const response = await get(`${t.url}/`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/console/');
  });

  test('index.html is never cached and carries a CSP without inline script', async () => {
    for (const path of ['/console', '/console/']) {
      const response = await get(`${t.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(await response.text()).toContain('<title>Console</title>');
    }
  });

  test("a one-time link's setup page is the app's, and its address (token and all) goes to no other site", async () => {
    const response = await get(`${t.url}/console/setup?token=${'A'.repeat(43)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(await response.text()).toContain('<title>Console</title>');
  });

  test('a hashed asset is cached for a year as immutable', async () => {
    const response = await get(`${t.url}/console/assets/index-AbC123xy.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe('console.log("app")');
  });

  test("the app's own routes are answered with index.html (SPA fallback)", async () => {
    for (const path of ['/console/payments', '/console/payments/6284ff16d4b1c2a3e4f50020', '/console/payment-links/new']) {
      const response = await get(`${t.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<title>Console</title>');
    }
  });

  test('a missing asset is a 404, not index.html, and nothing outside the build is reachable', async () => {
    const missing = await get(`${t.url}/console/assets/gone-ZZZZ9999.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
    for (const path of ['/console/assets/..%2f..%2fpackage-aaaaaaaa.json', '/console/..%2f..%2fpackage.json', '/console/%2e%2e/%2e%2e/package.json']) {
      const escape = await get(`${t.url}${path}`);
      expect(await escape.text()).not.toContain('"workspaces"');
    }
  });

  test('the console answers only GET and HEAD; the API and payer pages are untouched', async () => {
    const post = await fetch(`${t.url}/console/payments`, { method: 'POST' });
    expect(post.status).toBe(405);
    const api = await fetch(`${t.apiUrl}/payments`, { headers: { Authorization: `Bearer ${t.a.key}`, Accept: 'application/json' } });
    expect(api.status).toBe(200);
  });
});

describe('without a build', () => {
  const t = useService({ consoleDir: join(tmpdir(), 'no-console-build-here') });

  test('/console answers 503 with how to build it', async () => {
    for (const path of ['/console', '/console/payments']) {
      const response = await get(`${t.url}${path}`);
      expect(response.status).toBe(503);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await response.text();
      expect(body).toContain('The console is not built');
      expect(body).toContain('npm ci');
    }
  });

  test('the API still serves', async () => {
    const response = await fetch(`${t.url}/health`);
    expect(response.status).toBeLessThan(500);
  });
});
