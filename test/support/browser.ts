// Debian's Chromium driven by playwright-core (never a downloaded browser). Flags keep it off the
// network: this machine has none, and tests must only ever talk to 127.0.0.1.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" (.ci/run does).`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

/** Full-page screenshots of the current page at phone and desktop width. */
export async function screenshots(page: Page, name: string): Promise<void> {
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/**
 * What makes a phone user scroll sideways or miss words: the page wider than the window, a box that
 * scrolls sideways, or text cut short with an ellipsis (a badge reading "T…"). Read from the layout the
 * browser computed, whatever the markup.
 */
export async function widthProblems(page: Page, within: 'main' | 'banner' = 'main'): Promise<string[]> {
  return page.getByRole(within).evaluate((region) => {
    // The few DOM shapes read here (this project's type checks run without the DOM's types).
    interface Shown {
      scrollWidth: number;
      clientWidth: number;
      innerText?: string;
      textContent: string | null;
      getAttribute(name: string): string | null;
    }
    interface Window {
      innerWidth: number;
      getComputedStyle(element: Shown): { overflowX: string; textOverflow: string };
    }
    const document = (region as unknown as { ownerDocument: { documentElement: Shown; defaultView: Window } }).ownerDocument;
    const window = document.defaultView;
    const problems: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > window.innerWidth) problems.push(`the page is ${root.scrollWidth} px wide in a ${window.innerWidth} px window`);
    for (const element of region.querySelectorAll('*') as unknown as Iterable<Shown>) {
      const style = window.getComputedStyle(element);
      const text = (element.innerText ?? element.textContent ?? '').trim().slice(0, 60);
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && element.scrollWidth > element.clientWidth + 1)
        problems.push(`scrolls sideways (${element.scrollWidth} px in ${element.clientWidth} px): ${element.getAttribute('aria-label') ?? text}`);
      if (style.textOverflow === 'ellipsis' && element.scrollWidth > element.clientWidth) problems.push(`cut short: "${text}"`);
    }
    return problems;
  });
}
