// `npm run screenshots:payer`: the pay page in English, Malay and Chinese, as a payer's phone shows it,
// for docs/integrating.md (the payer's language and the merchant's brand). Starts the service in this
// process on 127.0.0.1 over a throwaway SQLite database, gives a business a display name, a logo and a
// brand colour through the API, makes one open link, and has Debian's Chromium (playwright-core,
// CHROMIUM_PATH or /usr/bin/chromium) open its page with ?lang= for each language. Writes
// docs/screenshots/pay-{en,ms,zh}.png. Chinese needs a CJK font on the machine (Debian: fonts-noto-cjk);
// without one Chromium draws boxes, and the script says so.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { createPaymentsClient } from '../client/index.js';
import { LOCALES } from '../server/domain/locales.js';
import { silentLogger } from '../server/logger.js';
import { startService } from '../server/start.js';
import { issueKey } from '../server/store/api-keys.js';
import { findOrCreateBusiness } from '../server/store/businesses.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A 96×96 PNG logo drawn here: a ring in the brand colour on white (RGB, no dependency). */
function logoPng(): Buffer {
  const size = 96;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - size / 2 + 0.5, y - size / 2 + 0.5);
      const ink = (d > 30 && d < 44) || (d < 18 && Math.abs(x - y) < 30);
      row.set(ink ? [0x0b, 0x6e, 0x4f] : [0xff, 0xff, 0xff], 1 + x * 3);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Whether fontconfig knows a font that writes Chinese (the zh page is boxes without one). */
function hasChineseFont(): boolean {
  const listed = spawnSync('fc-list', [':lang=zh'], { encoding: 'utf8' });
  return listed.status === 0 && listed.stdout.trim() !== '';
}

async function main(): Promise<void> {
  if (!hasChineseFont()) console.warn('warning: no font for Chinese is installed (Debian: apt-get install fonts-noto-cjk); pay-zh.png will show boxes');
  const dir = mkdtempSync(join(tmpdir(), 'payer-screenshots-'));
  const service = await startService({
    databaseUrl: `sqlite:${join(dir, 'payments.sqlite')}`,
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger(),
    mail: { mailDir: join(dir, 'mail') },
    outbox: { worker: false },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const business = await findOrCreateBusiness(service.db, 'Ah Seng Trading Sdn Bhd');
    const { key } = await issueKey(service.db, business.id);
    const api = createPaymentsClient({ baseUrl: `${service.url}/api`, apiKey: key });
    const checked = <T>(what: string, answer: { data?: T; error?: unknown }): T => {
      if (!answer.data) throw new Error(`${what}: ${JSON.stringify(answer.error)}`);
      return answer.data;
    };
    checked(
      'the business profile',
      await api.PATCH('/business', {
        body: { display_name: 'Kedai Kopi Ah Seng', brand_color: '#0b6e4f', support_email: 'hello@ahseng.example.com', support_phone: '+60 3-1234 5678' },
      }),
    );
    checked('the logo', await api.PUT('/business/logo', { body: { image: logoPng().toString('base64') } }));
    const link = checked(
      'the open link',
      await api.POST('/open-payment-links', {
        body: { currency: 'MYR', minimum_amount: '10.00', title: 'Kopi & kuih', description: 'Breakfast order, table 7' },
      }),
    ).data;

    mkdirSync(OUT, { recursive: true });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
    const page = await context.newPage();
    for (const locale of LOCALES) {
      const url = new URL(link.payment_url);
      url.searchParams.set('lang', locale);
      const response = await page.goto(url.toString());
      if (response?.status() !== 200) throw new Error(`the pay page in ${locale} answered ${response?.status()}`);
      const file = join(OUT, `pay-${locale}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`wrote ${file.slice(ROOT.length + 1)}`);
    }
    await context.close();
  } finally {
    await browser.close();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
