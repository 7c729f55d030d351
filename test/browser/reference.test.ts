// The rendered reference at /docs (Redoc, built by `npm run generate`), in Chromium, as the service
// serves it (the security review and the house review): a CSP that runs its own inline scripts only (by hash), cannot be framed
// and loads no plug-in, nosniff; it renders every operation with no request to any host but the
// service, no console error and no violation of its policy; and it reads cleanly: its Servers box
// without raw Markdown, every sidebar title in full, the README's variables in its samples.
import { readFileSync } from 'node:fs';
import type { Browser, Page, Request } from 'playwright-core';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_PATH } from '../../server/file-locations.js';
import { inlineScripts } from '../../server/http/reference-page.js';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { raw, useService } from '../support/service.js';

interface Violation {
  directive: string;
  blocked: string;
}

type Json = Record<string, unknown>;
const spec = parseYaml(readFileSync(SPEC_PATH, 'utf8')) as {
  info: { description: string };
  servers: { description: string }[];
  paths: Record<string, Json>;
  tags: { name: string }[];
};
const summaries = Object.values(spec.paths).flatMap((item) =>
  ['get', 'post', 'put', 'patch', 'delete'].flatMap((method) => (item[method] ? [(item[method] as { summary: string }).summary] : [])),
);
const sections = [...spec.info.description.matchAll(/^## (.+)$/gm)].map((match) => match[1]!);

const t = useService();
let browser: Browser;
let page: Page;
const requests: Request[] = [];
const consoleErrors: string[] = [];
let answer: Awaited<ReturnType<Page['goto']>>;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: VIEWPORTS.desktop, reducedMotion: 'reduce' })).newPage();
  page.setDefaultTimeout(20_000);
  page.on('request', (request) => requests.push(request));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') consoleErrors.push(`${message.type()}: ${message.text().slice(0, 300)}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
  // A string, as is all that names window or document here: the tests compile without the DOM library.
  await page.addInitScript(
    `window.violations = []; document.addEventListener('securitypolicyviolation', (event) => window.violations.push({ directive: event.effectiveDirective, blocked: event.blockedURI }));`,
  );
  answer = await page.goto(`${t.url}/docs`, { waitUntil: 'load' });
  await page.getByRole('heading', { name: sections[0] }).waitFor();
}, 90_000);
afterAll(async () => {
  await browser?.close();
});

describe('/docs as served', () => {
  it('has a CSP that runs its own inline scripts and nothing else, cannot be framed, with nosniff', async () => {
    const headers = answer!.headers();
    expect(answer!.status()).toBe(200);
    expect(headers['x-content-type-options']).toBe('nosniff');
    const policy = Object.fromEntries(
      headers['content-security-policy']!.split(';').map((directive) => {
        const [name, ...values] = directive.trim().split(/\s+/);
        return [name!, values];
      }),
    );
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['object-src']).toEqual(["'none'"]);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(policy['base-uri']).toEqual(["'none'"]);
    // 'self' and one hash per inline script of the page as served: no 'unsafe-inline', no 'unsafe-eval', no host.
    const scripts = inlineScripts((await raw(`${t.url}/docs`)).text);
    expect(scripts.length).toBeGreaterThan(0);
    expect(policy['script-src']![0]).toBe("'self'");
    expect(policy['script-src']!.slice(1)).toHaveLength(scripts.length);
    for (const source of policy['script-src']!.slice(1)) expect(source).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
    for (const sources of Object.values(policy)) for (const source of sources) expect(source).not.toMatch(/^https?:|^\*|unsafe-eval/);
  });

  it("titles every section and operation in full in the sidebar, and renders each group's first operation under its summary", async () => {
    const titles: string[] = [];
    const clipped: string[] = [];
    const labelsIn = (within: ReturnType<Page['locator']>) =>
      within.locator('[data-testid="menu-item-label"]').evaluateAll((found) =>
        found.map((item) => ({
          text: (item.querySelector('[data-text]')?.getAttribute('data-text') ?? '').trim(),
          clipped: [...item.querySelectorAll('*')].some((element) => element.scrollWidth > element.clientWidth + 1),
        })),
      );
    const note = (labels: { text: string; clipped: boolean }[]) => {
      titles.push(...labels.map((label) => label.text));
      clipped.push(...labels.filter((label) => label.clipped).map((label) => label.text));
    };
    const menu = page.locator('.menu-content');
    note(await labelsIn(menu.locator('.menu-item-type-default')));
    const groups = menu.locator('.menu-item-type-group');
    expect(await groups.count()).toBe(spec.tags.length);
    // Each group opened in turn, and its first operation opened from it: its page shows it under its summary.
    let opened = 0;
    for (let i = 0; i < spec.tags.length; i += 1) {
      const group = groups.nth(i);
      await group.locator(':scope > a').click();
      const items = group.locator('ul[data-component-name="Menu/Menu"] [data-testid="menu-item-label"]');
      await items.first().waitFor();
      note(await labelsIn(group));
      const title = (await items.first().locator('[data-text]').getAttribute('data-text'))!.trim();
      // The Webhooks group's items are events, not operations.
      if (!summaries.includes(title)) continue;
      await items.first().click();
      const heading = page.locator('h1, h2').filter({ hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
      await heading.first().waitFor();
      opened += 1;
    }
    expect(opened).toBe(spec.tags.length - 1);
    expect(sections.filter((section) => !titles.includes(section))).toEqual([]);
    expect(summaries.filter((summary) => !titles.includes(summary))).toEqual([]);
    expect(clipped).toEqual([]);
  });

  it('asks no host but the service for anything, and logs no error', async () => {
    // Search builds its index, and a sidebar group and the colour mode are used, so what they load is seen too.
    await page.getByTestId('search-trigger').click();
    await page.keyboard.type('refund');
    await page.getByText('Refund a payment', { exact: true }).first().waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('color-mode-switcher').click();
    const origin = new URL(t.url).origin;
    const elsewhere = requests.map((request) => request.url()).filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('breaks no rule of its policy, but the eval search probes for (which falls back to searching on the page)', async () => {
    const violations = (await page.evaluate('window.violations')) as Violation[];
    expect(violations.filter((violation) => !(violation.directive === 'script-src' && violation.blocked === 'eval'))).toEqual([]);
    // Its images are drawn in the page: Redocly's logo is shown, not broken.
    const logo = page.getByRole('img', { name: 'redocly logo' });
    const image = await logo.evaluate((element) => {
      const shown = element as unknown as { complete: boolean; naturalWidth: number; src: string };
      return { drawn: shown.complete && shown.naturalWidth > 0, src: shown.src.slice(0, 5) };
    });
    expect(image).toEqual({ drawn: true, src: 'data:' });
  });
});

describe('/docs reads cleanly', () => {
  it('shows no raw Markdown: no backtick outside code, the Servers box included', async () => {
    const server = page.getByTestId('server-panel-item-name').first();
    expect(await server.textContent()).toBe(spec.servers[0]!.description);
    expect(await server.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    const stray = await page.evaluate(`(() => {
      const copy = document.body.cloneNode(true);
      copy.querySelectorAll('pre, code, script, style').forEach((element) => element.remove());
      return [...copy.textContent.matchAll(/.{0,40}\`.{0,40}/g)].map((match) => match[0]);
    })()`);
    expect(stray).toEqual([]);
  });

  it("writes its samples with the README's variables", async () => {
    expect(await page.content()).not.toContain('PAYMENTS_API');
    await page.goto(`${t.url}/docs#/payment-links/createpaymentlink`);
    const sample = page.locator('pre').filter({ hasText: 'curl -X POST' }).first();
    expect(await sample.textContent()).toMatch(/^curl -X POST "\$API\/payment-links" \\\s+-H "Authorization: Bearer \$KEY"/);
  });
});
