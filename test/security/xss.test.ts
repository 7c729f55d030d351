// Stored and reflected XSS on the payer's side, in a real browser (Debian's Chromium). Every text
// field of payment links, open links and tokens carries script probes (tags, attribute breakers,
// </title>, entity- and unicode-escaped and full-width variants, template syntax, javascript: URLs);
// so do the payer's own inputs echoed back on a refused form, the thank-you page's query and the ids
// in page URLs. Each page is opened twice: with the CSP enforced, and with the CSP bypassed, so that
// the HTML escaping is proven on its own and not only hidden behind the policy. A probe fails the
// test if it runs (window.__xss, a dialog, a CSP violation report, a request for anything but the
// page and its stylesheet), if it adds any element, or if its text does not appear verbatim.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskEmail } from '../../server/domain/email.js';
import { FIELD_MAX_LENGTH } from '../../server/pages/form.js';
import { launchBrowser } from '../support/browser.js';
import { DECLINED_CARD, GOOD_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { api } from './fixture.js';
import { apiPath, loadSpec, propertiesOf, resourceOf, types, type Schema, type Spec } from './spec.js';

const PROBES = [
  '<script>window.__xss=1</script>',
  '"><img src=x onerror="window.__xss=1">',
  "'><svg onload=window.__xss=1>",
  '</title><svg onload=window.__xss=1>',
  '<img src=x onerror=alert(1)>',
  '<svg><script>window.__xss=1</script></svg>',
  '<scr<script>ipt>window.__xss=1</script>',
  '<iframe srcdoc="<script>parent.__xss=1</script>">',
  '<a href="javascript:alert(1)">click</a>',
  '<base href="https://evil.example/">',
  '<meta http-equiv="refresh" content="0;url=/x">',
  '<style>*{display:none}</style>',
  '<!--<script>window.__xss=1</script>-->',
  'javascript:window.__xss=1',
  '&lt;script&gt;window.__xss=1&lt;/script&gt;',
  '%3Cscript%3Ewindow.__xss=1%3C/script%3E',
  '\uFF1Cscript\uFF1Ewindow.__xss=1\uFF1C/script\uFF1E',
  '\u2028<script>window.__xss=1</script>\u2029',
  '{{constructor.constructor("window.__xss=1")()}}',
  '${alert(1)}<% alert(1) %>',
];

/** Addresses the e-mail format accepts that would break out of a single-quoted attribute or decode as an entity. */
const EMAIL_PROBES = [
  "x'onfocus='window.__xss=1'autofocus='@example.com",
  'x&quot@example.com',
  'x&#34@example.com',
  "x'autofocus/onfocus='window.__xss=1'@example.com",
];

/** Sent with every `<` and `>` as a JSON \u escape, in half the creates: decoding must not bypass escaping. */
const jsonWithEscapes = (body: unknown) => JSON.stringify(body).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');

let spec: Spec;
let browser: Browser;
let rendered = 0;
let loads = 0;

type Json = Record<string, unknown>;

interface ProbeRecords {
  probe: string;
  paymentLink: Json;
  openLink: Json;
  token: Json;
  /** The text each field was given, by resource and field. */
  sent: Record<string, Record<string, string>>;
}
const records: ProbeRecords[] = [];
let control: ProbeRecords;

/** Free-text fields of a create body, with their schema. */
function textFields(resource: string): [string, Schema][] {
  const create = spec.operations.find((o) => o.method === 'POST' && o.body && resourceOf(o.template) === resource)!;
  return Object.entries(propertiesOf(create.body!.schema)).filter(
    ([, schema]) =>
      types(schema).includes('string') &&
      !types(schema).some((type) => type === 'integer' || type === 'number') &&
      !schema.enum &&
      schema.format !== 'iso4217' &&
      schema.format !== 'date-time',
  );
}

/** The probe as this field can take it: fitted to its maxLength, as an address for e-mail, inside an http URL for URLs. */
function valueFor(field: string, schema: Schema, probe: string, index: number): string {
  if (schema.format === 'email') return EMAIL_PROBES[index % EMAIL_PROBES.length]!;
  if (schema.format === 'http-url') return `https://merchant.example/return?next=${probe.replace(/\s+/g, '/')}`;
  return probe.slice(0, schema.maxLength ?? probe.length);
}

async function createWith(
  resource: string,
  path: string,
  base: Json,
  probe: string,
  index: number,
  escapes: boolean,
): Promise<{ data: Json; sent: Record<string, string> }> {
  const sent = Object.fromEntries(textFields(resource).map(([field, schema]) => [field, valueFor(field, schema, probe, index)]));
  const body = { ...base, ...sent };
  const response = await fetch(`${t.apiUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.a.key}`, 'Content-Type': 'application/json' },
    body: escapes ? jsonWithEscapes(body) : JSON.stringify(body),
  });
  const json = (await response.json()) as { data: Json };
  expect(response.status, `${path} with ${JSON.stringify(probe)}: ${JSON.stringify(json)}`).toBe(200);
  for (const [field, value] of Object.entries(sent)) expect(json.data[field], `${path} ${field} stored as sent`).toBe(value);
  return { data: json.data, sent };
}

async function createAll(probe: string, index: number): Promise<ProbeRecords> {
  const escapes = index % 2 === 1;
  const paymentLink = await createWith('payment-links', '/payment-links', { currency: 'MYR', amount: 1000, send_email: true }, probe, index, escapes);
  const openLink = await createWith('open-payment-links', '/open-payment-links', { currency: 'MYR', minimum_amount: '10.00' }, probe, index, escapes);
  const token = await createWith('tokenizations', '/tokenizations/create-token', {}, probe, index, escapes);
  return {
    probe,
    paymentLink: paymentLink.data,
    openLink: openLink.data,
    token: token.data,
    sent: { 'payment-links': paymentLink.sent, 'open-payment-links': openLink.sent, tokenizations: token.sent },
  };
}

const t = useService();
beforeAll(async () => {
  spec = await loadSpec();
  browser = await launchBrowser();
  control = await createAll('Plain words only', 0);
  for (const [index, probe] of PROBES.entries()) records.push(await createAll(probe, index));
}, 120_000);

afterAll(async () => {
  console.log(`xss: ${rendered} probe texts verified as inert text on ${loads} page loads; none executed`);
  await browser?.close();
});

interface Watch {
  dialogs: string[];
  violations: string[];
  strayRequests: string[];
  errors: string[];
}

/** A fresh page that records anything a probe could make happen. */
async function watchedPage(context: BrowserContext): Promise<{ page: Page; watch: Watch }> {
  const page = await context.newPage();
  const watch: Watch = { dialogs: [], violations: [], strayRequests: [], errors: [] };
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) watch.violations.push(message.text());
  });
  page.on('pageerror', (error) => watch.errors.push(error.message));
  page.on('request', (request) => {
    const url = new URL(request.url());
    const ours =
      url.origin === t.url &&
      ['/assets/pay.css', '/favicon.ico', '/payment/pay', '/payment/open-link/pay', '/payment/open-link/poster', '/payment/thank-you'].includes(url.pathname);
    const activation = url.origin === t.url && url.pathname.startsWith('/tokenization/activation/');
    if (!ours && !activation && url.protocol !== 'about:' && url.protocol !== 'data:') watch.strayRequests.push(request.url());
  });
  return { page, watch };
}

/** Tag names and attribute names of every element, in order: what markup the page is made of. */
function shapeOf(page: Page): Promise<unknown> {
  return page.evaluate(`[...document.querySelectorAll('*')].map((e) => e.tagName + '[' + [...e.attributes].map((a) => a.name).sort().join(',') + ']')`);
}

/** `drawn`: the elements of the selector below that the page draws itself (the poster's QR code is one svg). */
async function expectInert(page: Page, watch: Watch, where: string, controlShape?: unknown, drawn = 0) {
  loads += 1;
  // Strings, not functions: the test compiles without the DOM library; this code runs in the page.
  expect(await page.evaluate('window.__xss'), `${where}: a probe ran`).toBeUndefined();
  expect(watch.dialogs, `${where}: a dialog opened`).toEqual([]);
  expect(watch.violations, `${where}: markup got in and only the CSP stopped it`).toEqual([]);
  expect(watch.strayRequests, `${where}: injected markup fetched something`).toEqual([]);
  expect(watch.errors, where).toEqual([]);
  const injected = await page.evaluate(`({
    elements: document.querySelectorAll('script, iframe, object, embed, svg, img, base, style, meta[http-equiv], a[href^="javascript" i]').length,
    handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => a.name.startsWith('on')).map((a) => e.tagName + ' ' + a.name)),
  })`);
  expect(injected, `${where}: markup was injected`).toEqual({ elements: drawn, handlers: [] });
  if (controlShape) expect(await shapeOf(page), `${where}: the page's markup differs from the same page with plain text`).toEqual(controlShape);
}

function expectRendered(actual: string | null | undefined, expected: string, where: string) {
  expect(actual, where).toBe(expected);
  rendered += 1;
}

function expectContained(actual: string | null | undefined, expected: string, where: string) {
  expect(actual ?? '', where).toContain(expected);
  rendered += 1;
}

const posterUrl = (openLink: Json) => `${t.url}/payment/open-link/poster?id=${openLink._id as string}`;

/** Text as the DOM holds it after parsing (a NUL or CR would be normalised; none of the probes has one). */
const textOf = (page: Page, selector: string) => page.locator(selector).first().textContent();

// Concurrent: each probe gets its own page in a shared context; nothing here changes a record.
// The echo and reflection checks run with the CSP bypassed only: with it enforced they could only
// pass the more easily.
describe.concurrent.each([
  ['with the CSP bypassed (the escaping alone)', true],
  ['with the CSP enforced', false],
] as const)('hosted pages %s', (_name, bypassCSP) => {
  let context: BrowserContext;
  const shapes: Record<string, unknown> = {};

  beforeAll(async () => {
    context = await browser.newContext({ bypassCSP });
    for (const [kind, url] of [
      ['payment', control.paymentLink.payment_url],
      ['open', control.openLink.payment_url],
      ['activation', control.token.activation_url],
      ['poster', posterUrl(control.openLink)],
    ] as const) {
      const { page } = await watchedPage(context);
      await page.goto(url as string);
      shapes[kind] = await shapeOf(page);
      await page.close();
    }
  });
  afterAll(() => context?.close());

  it.each(PROBES.map((probe, index) => [probe, index] as const))(
    'stored probe %j: payment, open-link, poster and activation pages render it as text',
    async (probe, index) => {
      const record = records[index]!;
      const sentPayment = record.sent['payment-links']!;
      const sentOpen = record.sent['open-payment-links']!;
      const sentToken = record.sent.tokenizations!;

      const { page, watch } = await watchedPage(context);
      expect((await page.goto(record.paymentLink.payment_url as string))?.status()).toBe(200);
      await expectInert(page, watch, `payment page ${JSON.stringify(probe)}`, shapes.payment);
      expectContained(await page.title(), `Pay Business A – ${sentPayment.title!}`, 'payment page <title>');
      expectRendered(await textOf(page, 'h1'), sentPayment.title!, 'payment page heading');
      expectRendered(await textOf(page, 'main h1 + p'), sentPayment.description!, 'payment page description');
      expectRendered(await page.locator('#email').inputValue(), maskEmail(sentPayment.email!), 'payment page e-mail (masked)');

      expect((await page.goto(record.openLink.payment_url as string))?.status()).toBe(200);
      await expectInert(page, watch, `open-link page ${JSON.stringify(probe)}`, shapes.open);
      expectContained(await page.title(), `Pay Business A – ${sentOpen.title!}`, 'open-link page <title>');
      expectRendered(await textOf(page, 'h1'), sentOpen.title!, 'open-link page heading');
      expectRendered(await textOf(page, 'main h1 + p'), sentOpen.description!, 'open-link page description');

      expect((await page.goto(posterUrl(record.openLink)))?.status()).toBe(200);
      await expectInert(page, watch, `poster ${JSON.stringify(probe)}`, shapes.poster, 1);
      expectContained(await page.title(), `Pay Business A – ${sentOpen.title!}`, 'poster <title>');
      expectRendered(await textOf(page, 'h1'), sentOpen.title!, 'poster heading');

      expect((await page.goto(record.token.activation_url as string))?.status()).toBe(200);
      await expectInert(page, watch, `activation page ${JSON.stringify(probe)}`, shapes.activation);
      expectContained(await page.title(), `Save a card with Business A – ${sentToken.title!}`, 'activation page <title>');
      expectRendered(await textOf(page, 'h1'), sentToken.title!, 'activation page heading');
      expectRendered(await textOf(page, 'main h1 + p'), sentToken.description!, 'activation page description');
      expectContained(await textOf(page, 'main p.muted'), sentToken.email!, 'activation page e-mail');
      await page.close();
    },
  );

  if (bypassCSP)
    it.each(PROBES.map((probe, index) => [probe, index] as const))('payer input %j echoed on a refused form stays text', async (probe, index) => {
      const record = records[index]!;
      const { page, watch } = await watchedPage(context);

      // Open link: every field wrong (amount and e-mail invalid), so all three come back in the form.
      await page.goto(record.openLink.payment_url as string);
      await page.getByLabel('Amount').fill(probe);
      await page.getByLabel('Name').fill(probe);
      await page.getByLabel('Email').fill(probe);
      await page.getByLabel('Card number').fill(DECLINED_CARD.card_number);
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Pay' }).click()]);
      await expectInert(page, watch, `open-link form echo ${JSON.stringify(probe)}`);
      // Inputs hold the trimmed text, as the server reads it (cut at each input's maxlength by the browser).
      for (const id of ['amount', 'name', 'email'] as const)
        expectRendered(await page.locator(`#${id}`).inputValue(), probe.slice(0, FIELD_MAX_LENGTH[id]).trim(), `open-link ${id} echo`);

      // Payment link and activation: a declined card re-renders the form with the payer's name.
      for (const url of [record.paymentLink.payment_url as string, record.token.activation_url as string]) {
        await page.goto(url);
        await page.getByLabel('Name').fill(probe);
        await page.getByLabel('Card number').fill(DECLINED_CARD.card_number);
        await page.getByLabel('Expiry (MM/YY)').fill(DECLINED_CARD.expiry);
        await page.getByLabel('CVC').fill(DECLINED_CARD.cvc);
        const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: /Pay|Save card/ }).click()]);
        expect(response?.status(), url).toBe(402);
        await expectInert(page, watch, `declined form echo ${JSON.stringify(probe)}`);
        expectRendered(await page.locator('#name').inputValue(), probe.trim(), `${url} name echo`);
      }
      await page.close();
    });

  if (bypassCSP)
    it.each(PROBES.map((probe) => [probe] as const))('reflected probe %j in page URLs and the thank-you query is never rendered', async (probe) => {
      const encoded = encodeURIComponent(probe);
      const { page, watch } = await watchedPage(context);
      for (const path of [
        `/payment/thank-you?payment_id=${encoded}&payment_link_id=${encoded}&payment_status=${encoded}&${encoded}=${encoded}`,
        `/payment/thank-you?payment_id=${records[0]!.paymentLink._id as string}&payment_link_id=${encoded}&payment_status=1`,
        `/payment/pay?id=${encoded}`,
        `/payment/open-link/pay?id=${encoded}`,
        `/payment/open-link/poster?id=${encoded}`,
        `/tokenization/activation/${encoded}`,
      ]) {
        const response = await page.goto(`${t.url}${path}`);
        expect(response?.status(), path).toBeLessThan(500);
        await expectInert(page, watch, `${path}`);
        expect(await page.content(), `${path} reflects the probe`).not.toContain(probe.slice(0, 12));
        rendered += 1;
      }
      await page.close();
    });
});

describe('after the payer acts', () => {
  it('the "Card saved" page shows each probe title as text', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    for (const record of records) {
      const payer = new Payer(t.url);
      const form = await payer.open(new URL(record.token.activation_url as string).pathname);
      expect((await payer.submit(form, { name: 'Card Holder', ...GOOD_CARD })).status).toBe(303);
      const { page, watch } = await watchedPage(context);
      await page.goto(record.token.activation_url as string);
      expect(await textOf(page, 'h1')).toBe('Card saved');
      await expectInert(page, watch, `card saved ${JSON.stringify(record.probe)}`);
      expectContained(await textOf(page, '[role=status]'), record.sent.tokenizations!.title!, 'card saved title');
      await page.close();
    }
    await context.close();
  });

  it("paying sends the payer to the merchant's redirect_url with the probe percent-encoded, never raw", async () => {
    for (const record of records.slice(0, 6)) {
      const payer = new Payer(t.url);
      const url = new URL(record.paymentLink.payment_url as string);
      const form = await payer.open(url.pathname + url.search);
      const paid = await payer.submit(form, { name: 'Payer', ...GOOD_CARD });
      expect(paid.status).toBe(303);
      expect(new URL(paid.location!).origin).toBe('https://merchant.example');
      expect(paid.location, record.probe).not.toMatch(/[<>"\s`]/);
      // The 303's own body, if a browser ever showed it, is escaped too.
      expect(paid.html).not.toMatch(/<(script|svg|img|iframe)/i);
    }
  });
});

describe('javascript: and other non-http URLs', () => {
  const BAD_URLS = [
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'javascript://example.com/%0aalert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    '//evil.example/path',
    '/relative/path',
    'https:/evil.example',
    'http://',
  ];

  it('are refused (422) in every URL field of every write operation', async () => {
    let checked = 0;
    for (const operation of spec.operations.filter((o) => o.body)) {
      for (const [field, schema] of Object.entries(propertiesOf(operation.body!.schema))) {
        if (schema.format !== 'http-url') continue;
        for (const value of BAD_URLS) {
          const ids = {
            payment_link_id: records[0]!.paymentLink._id as string,
            open_payment_link_id: records[0]!.openLink._id as string,
            token_id: records[0]!.token._id as string,
            // Refused by the body's validation, before any endpoint is looked up.
            webhook_endpoint_id: `we_${'0'.repeat(24)}`,
          };
          const response = await api(t, t.a.key, operation.method, apiPath(operation.template, ids), { ...operation.body!.example, [field]: value });
          expect(response.status, `${operation.operationId} ${field}=${JSON.stringify(value)}`).toBe(422);
          expect(Object.keys((response.body as { errors: object }).errors)).toEqual([field]);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('the payment request e-mail', () => {
  it('renders every probe in its HTML as text, and its button goes to the payment page only', async () => {
    const mailDir = join(t.dir, 'mail');
    const parsed = async () =>
      Promise.all(
        readdirSync(mailDir)
          .filter((name) => name.endsWith('.eml'))
          .map((name) => simpleParser(readFileSync(join(mailDir, name)))),
      );
    await waitFor('every payment request e-mail', async () => (await parsed().catch(() => [])).length >= records.length + 1, 20_000);
    const mails = await parsed();
    const context = await browser.newContext();
    for (const record of records) {
      const mail = mails.find((m) => typeof m.html === 'string' && m.html.includes(`id=${record.paymentLink._id as string}`));
      expect(mail, `no payment request e-mail for ${JSON.stringify(record.probe)}`).toBeDefined();
      const { page, watch } = await watchedPage(context);
      await page.setContent(mail!.html as string, { waitUntil: 'load' });
      await expectInert(page, watch, `e-mail ${JSON.stringify(record.probe)}`);
      const sent = record.sent['payment-links']!;
      expectContained(await textOf(page, 'h2'), sent.title!, 'e-mail heading');
      expectContained(await page.locator('body').textContent(), sent.description!, 'e-mail description');
      expectContained(await page.locator('body').textContent(), `Reference: ${sent.reference!}`, 'e-mail reference');
      const hrefs = await page.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      expect(hrefs).toEqual([record.paymentLink.payment_url]);
      await page.close();
    }
    await context.close();
  });
});
