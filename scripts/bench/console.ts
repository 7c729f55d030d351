// `npm run bench -- --console`: the merchant console's two figures.
// 1. Its initial JavaScript, gzipped: the scripts console/dist/index.html loads before anything else
//    (its module entry and the chunks it preloads), each compressed with gzip's default level as a
//    server would send it. Budget: 250 KB.
// 2. The time from navigation to the payments list rendered with 50 rows, on loopback: a signed-in
//    member opens /console/payments in Chromium over a seeded service (scripts/console-seed.ts);
//    the clock is the page's own (performance.now() from the navigation's start) read on the frame
//    the 50th row is in the document. Cold (empty browser cache, a new context) and warm (cached
//    assets, a reload), the median of `runs` each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';
import { CONSOLE_DIST_PATH } from '../../server/file-locations.js';
import { OWNER, startSeededConsole } from '../console-seed.js';

export const INITIAL_JS_BUDGET_BYTES = 250 * 1024;
const ROWS = 50;

export interface ConsoleBenchResult {
  initialJs: { files: { file: string; bytes: number; gzipped: number }[]; gzipped: number; budget: number; met: boolean };
  paymentsList: { rows: number; coldMs: number[]; warmMs: number[]; coldMedianMs: number; warmMedianMs: number };
}

/** The scripts index.html loads at once: `<script type="module" src>` and `<link rel="modulepreload" href>`. */
export function initialScripts(indexHtml: string): string[] {
  const found = new Set<string>();
  for (const match of indexHtml.matchAll(/<script [^>]*src="([^"]+\.js)"/g)) found.add(match[1]!);
  for (const match of indexHtml.matchAll(/<link [^>]*rel="modulepreload" [^>]*href="([^"]+\.js)"/g)) found.add(match[1]!);
  return [...found];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runConsoleBench({ log, runs = 5 }: { log: (line: string) => void; runs?: number }): Promise<ConsoleBenchResult> {
  const index = readFileSync(join(CONSOLE_DIST_PATH, 'index.html'), 'utf8');
  const files = initialScripts(index).map((src) => {
    const bytes = readFileSync(join(CONSOLE_DIST_PATH, src.replace(/^\/console\//, '')));
    return { file: src, bytes: bytes.length, gzipped: gzipSync(bytes).length };
  });
  const gzipped = files.reduce((sum, file) => sum + file.gzipped, 0);
  const initialJs = { files, gzipped, budget: INITIAL_JS_BUDGET_BYTES, met: gzipped <= INITIAL_JS_BUDGET_BYTES };
  for (const file of files) log(`console: ${file.file} ${(file.bytes / 1024).toFixed(1)} KB, ${(file.gzipped / 1024).toFixed(1)} KB gzipped`);
  log(`console: initial JavaScript ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${INITIAL_JS_BUDGET_BYTES / 1024} KB: ${initialJs.met ? 'met' : 'NOT MET'})`);

  const seeded = await startSeededConsole({ openLinkPayments: ROWS + 10 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const signedIn = async (): Promise<BrowserContext> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // The session cookie from signing in through the API, as the console's own sign-in would set it.
      const answer = await context.request.post(`${seeded.url}/api/auth/login`, { data: OWNER });
      if (answer.status() !== 200) throw new Error(`signing in answered ${answer.status()}`);
      return context;
    };
    const listed = async (context: BrowserContext, reload: boolean): Promise<number> => {
      const page = context.pages()[0] ?? (await context.newPage());
      if (reload) await page.reload({ waitUntil: 'commit' });
      else await page.goto(`${seeded.url}/console/payments`, { waitUntil: 'commit' });
      const handle = await page.waitForFunction(
        // Runs in the page: the DOM's types are not this script's (Node) library.
        (rows) => {
          const page = globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } };
          return page.document.querySelectorAll('table[aria-label="Payments"] tbody tr').length >= rows ? performance.now() : false;
        },
        ROWS,
        { polling: 'raf', timeout: 30_000 },
      );
      return (await handle.jsonValue()) as number;
    };
    const coldMs: number[] = [];
    const warmMs: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const context = await signedIn();
      coldMs.push(await listed(context, false));
      warmMs.push(await listed(context, true));
      await context.close();
    }
    const paymentsList = { rows: ROWS, coldMs, warmMs, coldMedianMs: median(coldMs), warmMedianMs: median(warmMs) };
    log(
      `console: payments list with ${ROWS} rows rendered ${paymentsList.coldMedianMs.toFixed(0)} ms after navigation cold, ${paymentsList.warmMedianMs.toFixed(0)} ms warm (median of ${runs}; loopback, SQLite)`,
    );
    return { initialJs, paymentsList };
  } finally {
    await browser.close();
    await seeded.close();
  }
}
