// The console's side of the settlement ledger, as a finance member rehearses their bookkeeping on the
// sandbox: the balance on the overview, a payment's fee, net and when it is available, a payout
// simulated for that day, opened (its entries, totals equal to it), its itemized CSV downloaded, a
// bank statement uploaded whose line matches it, and the payout then reconciled; a payout the ledger
// says is mismatched is flagged in the list and on its page. A business off the sandbox is told why
// it cannot simulate, and a support member is offered no Payouts. Elements by role and label; axe on
// every view visited, at 1280 px and at 390 px.
import { AxeBuilder } from '@axe-core/playwright';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { PASSWORD, member } from '../support/members.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { useService } from '../support/service.js';

const t = useService();
let browser: Browser;

/** axe on the view as it is, at a desk's width and at a phone's, back at the desk's after. */
async function noAxeViolations(page: Page, view: string): Promise<void> {
  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    const results = await new AxeBuilder({ page }).analyze();
    expect(
      results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      `axe on ${view} (${width})`,
    ).toEqual([]);
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

async function signedIn(businessId: number, role: 'finance' | 'support'): Promise<Page> {
  const { email } = await member(t, businessId, role);
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, reducedMotion: 'reduce', acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.url}/console/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

/** A payment of RM 100.00 to business A, paid by card on the hosted page: RM 2.50 fee, RM 97.50 net. */
async function paidPayment(): Promise<string> {
  const { data } = await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 10_000, title: 'Order 88' } });
  const paid = await submitPage(t.url, data!.data.payment_url, { name: 'Aisyah Rahman', ...GOOD_CARD });
  expect(paid.status).toBe(303);
  return paid.paymentId!;
}

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('payouts in the console', () => {
  it('shows the balance, simulates a payout, itemizes it to the sen, and reconciles it with a bank statement', async () => {
    const paymentId = await paidPayment();
    const page = await signedIn(t.a.business.id, 'finance');
    try {
      const balance = page.getByRole('region', { name: 'Balance' });
      await expect.poll(() => balance.innerText()).toMatch(/Available\s+RM 0\.00\s+Pending\s+RM 97\.50/);
      await noAxeViolations(page, 'the overview with the balance');

      // The payment's fee and net, and the day its net becomes available.
      await page.goto(`${t.url}/console/payments/${paymentId}`);
      const details = page.getByRole('table', { name: 'Payment' });
      await expect.poll(() => details.innerText()).toMatch(/Pending: available on \d{4}-\d{2}-\d{2}/);
      expect(await details.innerText()).toMatch(/Fee\s+RM 2\.50\s+Net\s+RM 97\.50/);
      const day = /available on (\d{4}-\d{2}-\d{2})/.exec(await details.innerText())![1]!;

      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payouts' }).click();
      await page.getByText('No payouts yet').waitFor();
      const simulate = page.getByRole('form', { name: 'Simulate a payout' });
      await simulate.getByLabel('Run the schedule for').fill(day);
      await simulate.getByRole('button', { name: 'Simulate payouts' }).click();
      await simulate.getByRole('status').getByText(`1 payout made for ${day}`).waitFor();
      const list = page.getByRole('table', { name: 'Payouts' });
      await expect.poll(() => list.innerText()).toMatch(/RM 97\.50\s+paid\s+expected/i);
      await noAxeViolations(page, 'payouts, one expected');

      await simulate.getByRole('link', { name: `Payout of RM 97.50 arriving ${day}` }).click();
      await page.getByRole('heading', { name: 'Payout RM 97.50' }).waitFor();
      const entries = page.getByRole('table', { name: 'Entries' });
      await entries.getByRole('link', { name: `Payment ${paymentId}` }).waitFor();
      expect(await entries.innerText()).toMatch(/charge\s+Payment \w+\s+\S+\s+RM 100\.00\s+RM 2\.50\s+RM 97\.50/);
      expect(await page.getByRole('table', { name: 'Totals' }).innerText()).toMatch(/Gross\s+RM 100\.00\s+Fee\s+RM 2\.50\s+Net\s+RM 97\.50/);
      await page.getByText("The entries' net adds up to the payout's RM 97.50.").waitFor();
      await noAxeViolations(page, 'a payout');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the itemized CSV' }).click()]);
      const payoutId = new URL(page.url()).pathname.split('/').at(-1)!;
      expect(download.suggestedFilename()).toBe(`payout-${day}-${payoutId}.csv`);
      const lines = readFileSync((await download.path())!, 'utf8')
        .trimEnd()
        .split('\r\n');
      expect(lines).toHaveLength(3);
      expect(lines.at(-1)).toBe('total,,,,,,,,,,,MYR,100.00,2.50,97.50,Asia/Kuala_Lumpur');

      // The payment's page says its net was paid out, and leads back to the payout.
      await entries.getByRole('link', { name: `Payment ${paymentId}` }).click();
      await details.getByRole('link', { name: `Paid out (available on ${day})` }).click();
      await page.getByRole('heading', { name: 'Payout RM 97.50' }).waitFor();

      // The bank's statement shows the deposit under the payout's bank reference (and a transfer no payout explains).
      const bankReference = /Bank reference\s+(\S+)/.exec(await page.getByRole('table', { name: 'Payout' }).innerText())![1];
      const [year, month, date] = day.split('-');
      const statement = [
        'Date,Description,Reference,Amount',
        `${date}/${month}/${year},PAYOUT,${bankReference},97.50`,
        `${date}/${month}/${year},TRANSFER,TRF 1,12.00`,
      ].join('\n');
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payouts' }).click();
      await page.getByRole('link', { name: 'Upload a bank statement' }).click();
      const form = page.getByRole('form', { name: 'Bank statement' });
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), form.getByRole('button', { name: 'Statement file (CSV)' }).click()]);
      await chooser.setFiles({ name: 'statement.csv', mimeType: 'text/csv', buffer: Buffer.from(statement) });
      // The columns are picked from the file's header line by their names.
      await expect.poll(() => form.getByLabel('Amount column').inputValue()).toBe('Amount');
      expect(await form.getByLabel('Reference column').inputValue()).toBe('Reference');
      await noAxeViolations(page, 'the bank statement upload');
      // Read as CIMB's layout, the file lacks its columns: the service says which, under the file.
      const bank = form.getByRole('combobox', { name: 'Bank' });
      await bank.click();
      await page.getByRole('option', { name: 'CIMB (BizChannel)' }).click();
      await form.getByRole('button', { name: 'Match the statement' }).click();
      await expect.poll(() => form.getByRole('button', { name: 'Statement file (CSV)' }).getAttribute('aria-invalid')).toBe('true');
      expect(await form.innerText()).toMatch(/names the columns .*Deposit/);
      await bank.click();
      await page.getByRole('option', { name: 'Another bank (pick the columns)' }).click();
      await form.getByRole('button', { name: 'Match the statement' }).click();
      await page.getByRole('heading', { name: 'Bank statement statement.csv' }).waitFor();
      await page.getByText('1 of 2 lines matched a payout', { exact: false }).waitFor();
      const outcomes = page.getByRole('table', { name: 'Statement lines' });
      expect(await outcomes.innerText()).toMatch(/2\s+\S+\s+RM 97\.50\s+\S+ · PAYOUT\s+matched\s+Payout \w+/i);
      expect(await outcomes.innerText()).toMatch(/3\s+\S+\s+RM 12\.00\s+TRF 1 · TRANSFER\s+unmatched\s+\S/i);
      await noAxeViolations(page, 'a bank statement matched');

      await outcomes.getByRole('link', { name: `Payout ${payoutId}` }).click();
      await page.getByRole('heading', { name: 'Payout RM 97.50' }).waitFor();
      await expect.poll(() => page.getByRole('table', { name: 'Payout' }).innerText()).toMatch(/Reconciliation\s+matched/i);

      // A payout the service found not to add up is flagged on its page, and in words in the list.
      await t
        .sql('payouts')
        .where({ _id: payoutId })
        .update({ reconciliation_status: 'mismatched', reconciliation_reason: 'Its entries add up to RM 96.50, not RM 97.50.' });
      // The console keeps what it read for a few seconds: a change made behind its back shows on a reload.
      await page.reload();
      await page.getByRole('alert').filter({ hasText: 'This payout does not reconcile' }).waitFor();
      await noAxeViolations(page, 'a mismatched payout');
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payouts' }).click();
      const status = page.getByRole('combobox', { name: 'Status' });
      await status.click();
      await page.getByRole('option', { name: 'failed' }).click();
      await page.getByText('No payout matches these filters').waitFor();
      await status.click();
      await page.getByRole('option', { name: 'paid' }).click();
      await page.waitForURL(/status=paid/);
      await expect.poll(() => list.innerText()).toMatch(/⚠ Check:\s+mismatched\s+Its entries add up to RM 96\.50/i);
    } finally {
      await page.context().close();
    }
  }, 120_000);

  it('tells a business off the sandbox why it cannot simulate, and offers no Payouts to support', async () => {
    await t.sql('businesses').where({ id: t.b.business.id }).update({ provider: 'stripe' });
    const finance = await signedIn(t.b.business.id, 'finance');
    try {
      await finance.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payouts' }).click();
      const simulate = finance.getByRole('form', { name: 'Simulate a payout' });
      await simulate.getByRole('button', { name: 'Simulate payouts' }).click();
      await simulate
        .getByRole('alert')
        .getByText(/sandbox acquirer/)
        .waitFor();
    } finally {
      await finance.context().close();
    }

    const support = await signedIn(t.a.business.id, 'support');
    try {
      const sections = support.getByRole('navigation', { name: 'Sections' });
      await sections.getByRole('link', { name: 'Payments' }).waitFor();
      expect(await sections.getByRole('link', { name: 'Payouts' }).count()).toBe(0);
      expect(await support.getByRole('region', { name: 'Balance' }).count()).toBe(0);
    } finally {
      await support.context().close();
    }
  }, 30_000);
});
