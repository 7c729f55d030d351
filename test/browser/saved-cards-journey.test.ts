// The console's saved cards, as an owner uses them at a desk and at a phone's width: the list (GET
// /api/tokenizations) with its filters, a card opened from it and charged after a confirmation, and a
// charge whose answer never arrived, sent again, charging once (both sends carry one Idempotency-Key).
// Elements by role and label; axe on every view visited.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { PASSWORD, member } from '../support/members.js';
import { useService } from '../support/service.js';

const t = useService();
let browser: Browser;

async function noAxeViolations(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  expect(
    results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    where,
  ).toEqual([]);
}

async function token(email: string, title: string) {
  const { data } = await t.a.client.POST('/tokenizations/create-token', { body: { email, title, description: `${title}, card on file` } });
  return data!.data;
}

/** The payer saves a card on the token's activation page. */
async function saveCard(activationUrl: string): Promise<void> {
  const payer = await browser.newPage();
  try {
    await payer.goto(activationUrl);
    await payer.getByLabel('Name').fill('Lim Mei Ling');
    await payer.getByLabel('Card number').fill('4242 4242 4242 4242');
    await payer.getByLabel('Expiry (MM/YY)').fill('12/39');
    await payer.getByLabel('CVC').fill('123');
    await payer.getByRole('button', { name: 'Save card' }).click();
    await payer.getByRole('heading', { name: 'Card saved' }).waitFor();
  } finally {
    await payer.close();
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('saved cards in the console', () => {
  it.each(Object.entries(VIEWPORTS))(
    'lists the cards and the requests for one, filters them, opens one, and a charge sent again after its answer was lost charges once (%s)',
    async (width, viewport) => {
      const owner = await member(t, t.a.business.id, 'owner');
      const payerEmail = `lim.${width}@example.com`;
      const saved = await token(payerEmail, `Monthly plan ${width}`);
      await saveCard(saved.activation_url);
      const waiting = await token(`tan.${width}@example.com`, `Yearly plan ${width}`);

      const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      try {
        await page.goto(`${t.url}/console/sign-in`);
        await page.getByLabel('E-mail').fill(owner.email);
        await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Overview' }).waitFor();

        await page.goto(`${t.url}/console/saved-cards`);
        await page.getByRole('heading', { name: 'Saved cards' }).waitFor();
        const table = page.getByRole('table', { name: 'Saved cards' });
        await expect.poll(() => table.innerText()).toContain(waiting.email);
        expect(await table.innerText()).toContain(payerEmail);
        await noAxeViolations(page, `saved cards (${width})`);

        // Only the saved ones.
        await page.getByRole('combobox', { name: 'Status' }).click();
        await page.getByRole('option', { name: 'Card saved' }).click();
        await page.waitForURL(/status=active/);
        await expect.poll(() => table.innerText()).not.toContain(waiting.email);
        expect(await table.innerText()).toContain('visa ending 4242');
        // By the payer's e-mail.
        await page.getByLabel('Payer e-mail').fill(payerEmail);
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/email=/);
        await expect.poll(() => table.getByRole('row').count()).toBe(2);
        await noAxeViolations(page, `saved cards, filtered (${width})`);

        await table.getByRole('link', { name: payerEmail }).click();
        await page.getByRole('form', { name: 'Charge the card' }).waitFor();
        // The service takes the first charge, and its answer is lost on the way back.
        let answersLost = 0;
        await page.route('**/api/tokenizations/*/charges', async (route) => {
          if (answersLost > 0) return route.continue();
          answersLost += 1;
          await route.fetch();
          await route.abort('connectionreset');
        });
        await page.getByLabel('Amount (MYR)').fill('12.50');
        const charge = async () => {
          await page.getByRole('button', { name: 'Charge…' }).click();
          const dialog = page.getByRole('dialog', { name: 'Charge this card?' });
          await dialog.waitFor();
          await noAxeViolations(page, `charge confirmation (${width})`);
          await dialog.getByRole('button', { name: 'Charge RM 12.50' }).click();
        };
        await charge();
        await expect.poll(() => answersLost).toBe(1);
        await page.getByRole('form', { name: 'Charge the card' }).waitFor();
        // The merchant, told nothing, charges again: the same request, the same key, one charge.
        await charge();
        await page.getByRole('heading', { name: /^Payment RM 12\.50/ }).waitFor();
        const charges = await t.a.client.GET('/payments', { params: { query: { 'filter[tokenization_id]': saved._id } } });
        expect(charges.data!.data.data.map((payment) => [payment.amount, payment.status])).toEqual([[1250, 'paid']]);
      } finally {
        await context.close();
      }
    },
    90_000,
  );
});
