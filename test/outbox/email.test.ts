// Payer e-mails go through the outbox over SMTP: what arrives, to whom, once per send, and what
// happens when the SMTP server refuses.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { listAttempts, listOutbox } from '../../server/store/outbox.js';
import { capturedLog } from '../support/log.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { useServicePerTest, type TestService } from '../support/service.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

let t: TestService | undefined;
let smtp: TestSmtp | undefined;
afterEach(async () => {
  await smtp?.close();
  t = smtp = undefined;
});
// Registered after the hook above, so each test's service closes before what it delivered to.
const serviceWith = useServicePerTest();

const FAST_RETRY = { baseMs: 40, capMs: 200, maxAttempts: 4 };

async function withSmtp(refuse?: (attempt: number) => boolean) {
  smtp = await startSmtp(refuse);
  t = await serviceWith({ mail: { smtpUrl: smtp.url, from: 'Acme Payments <billing@acme.test>' }, outbox: { retry: FAST_RETRY } });
  return { smtp, t };
}

const linkBody = { email: 'aisyah@example.com', currency: 'MYR', amount: 123456, title: 'Invoice 1001', description: 'Web design', reference: 'INV-1001' };

describe('payment link e-mail over SMTP', () => {
  it('sends one message with a text and an HTML part, the title, the amount in units and the payment_url', async () => {
    const { smtp, t } = await withSmtp();
    const link = await create.paymentLink(t.a, { ...linkBody, send_email: true });
    const [mail] = await waitFor('the e-mail', () => smtp.messages.length && smtp.messages);
    expect(mail!.to).toMatchObject({ value: [{ address: 'aisyah@example.com' }] });
    expect(mail!.from).toMatchObject({ value: [{ address: 'billing@acme.test' }] });
    expect(mail!.subject).toBe('Payment request from Business A: Invoice 1001 (RM 1,234.56)');
    // Without a support e-mail in the business's profile there is nobody to reply to.
    expect(mail!.replyTo).toBeUndefined();
    expect(mail!.text).toContain('Invoice 1001');
    expect(mail!.text).toContain('RM 1,234.56');
    expect(mail!.text).toContain(link.payment_url);
    expect(mail!.html).toContain(link.payment_url.replace(/&/g, '&amp;'));
    expect(mail!.html).toContain('Pay RM 1,234.56');
    expect(mail!.messageId).toMatch(/payment_link\.sent@payment-collection-service/);
    await t.service.worker!.drained();
    expect(smtp.messages).toHaveLength(1);
    const [entry] = await listOutbox(t.service.db, { channel: 'email' });
    expect(entry).toMatchObject({ status: 'delivered', attempts: 1, topic: 'payment_link.sent' });
  });

  it('sends nothing without send_email, or with send_email false', async () => {
    const { smtp, t } = await withSmtp();
    await t.a.client.POST('/payment-links', { body: linkBody });
    await t.a.client.POST('/payment-links', { body: { ...linkBody, send_email: false } });
    await t.service.worker!.drained();
    expect(smtp.messages).toHaveLength(0);
    expect(await listOutbox(t.service.db)).toHaveLength(0);
  });

  it('sends again when an update asks for it, with the updated link', async () => {
    const { smtp, t } = await withSmtp();
    const { data } = await t.a.client.POST('/payment-links', { body: linkBody });
    await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: data!.data._id } },
      body: { ...linkBody, amount: 2000, title: 'Invoice 1001 (revised)', send_email: true },
    });
    const [mail] = await waitFor('the e-mail', () => smtp.messages.length && smtp.messages);
    expect(mail!.subject).toBe('Payment request from Business A: Invoice 1001 (revised) (RM 20.00)');
  });

  it('enqueues nothing when the change itself fails (the outbox commits with it or not at all)', async () => {
    const { t } = await withSmtp();
    const { data } = await t.a.client.POST('/payment-links', { body: linkBody });
    await t.sql('payment_links').where({ _id: data!.data._id }).update({ paid: true, status: 'Paid' });
    const conflict = await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: data!.data._id } },
      body: { ...linkBody, send_email: true },
    });
    expect(conflict.response.status).toBe(409);
    const invalid = await t.a.client.POST('/payment-links', { body: { ...linkBody, amount: 1, send_email: true } });
    expect(invalid.response.status).toBe(422);
    expect(await listOutbox(t.service.db)).toHaveLength(0);
  });

  it('retries when the SMTP server refuses, then delivers exactly once, recording every attempt', async () => {
    const { smtp, t } = await withSmtp((attempt) => attempt <= 2);
    await t.a.client.POST('/payment-links', { body: { ...linkBody, send_email: true } });
    await waitFor('the e-mail', () => smtp.messages.length);
    await t.service.worker!.drained();
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.attempts).toBe(3);
    const [entry] = await listOutbox(t.service.db, { channel: 'email' });
    expect(entry).toMatchObject({ status: 'delivered', attempts: 3, last_error: null });
    const attempts = await listAttempts(t.service.db, entry!.id);
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'delivered'],
    ]);
    expect(attempts[0]!.error).toMatch(/451/);
    expect(attempts.every((a) => a.started_at <= a.finished_at)).toBe(true);
  });

  it('gives up after the last attempt and marks the entry dead', async () => {
    const { smtp, t } = await withSmtp(() => true);
    await t.a.client.POST('/payment-links', { body: { ...linkBody, send_email: true } });
    const [entry] = await waitFor('the entry to die', async () => {
      const entries = await listOutbox(t.service.db, { status: 'dead' });
      return entries.length && entries;
    });
    expect(entry).toMatchObject({ attempts: FAST_RETRY.maxAttempts, last_error: expect.stringMatching(/451/) });
    expect(smtp.attempts).toBe(FAST_RETRY.maxAttempts);
    expect(await listAttempts(t.service.db, entry!.id)).toHaveLength(FAST_RETRY.maxAttempts);
    await t.service.worker!.drained();
    expect(smtp.attempts).toBe(FAST_RETRY.maxAttempts);
  });

  it("keeps the payer's address out of the log and out of last_error when the server quotes it in a refusal", async () => {
    const { logger, lines } = capturedLog();
    smtp = await startSmtp(
      () => true,
      (recipient) => ({ code: 550, message: `<${recipient}>: Recipient address rejected` }),
    );
    t = await serviceWith({ mail: { smtpUrl: smtp.url }, outbox: { retry: FAST_RETRY }, logger });
    await t.a.client.POST('/payment-links', { body: { ...linkBody, send_email: true } });
    const [entry] = await waitFor('the entry to die', async () => {
      const entries = await listOutbox(t!.service.db, { status: 'dead' });
      return entries.length && entries;
    });
    // As the pay page shows an address: the first character, ***, the domain.
    expect(entry!.last_error).toMatch(/550 <a\*\*\*@example\.com>: Recipient address rejected/);
    const attempts = await listAttempts(t.service.db, entry!.id);
    expect(attempts).toHaveLength(FAST_RETRY.maxAttempts);
    for (const attempt of attempts) expect(attempt.error).toMatch(/<a\*\*\*@example\.com>/);
    const failures = await waitFor('every failure logged', () => {
      const found = lines.filter((line) => String(line.msg).startsWith('outbox delivery failed')).map((line) => JSON.stringify(line));
      return found.length === FAST_RETRY.maxAttempts && found;
    });
    expect(failures.join('\n')).toContain('a***@example.com');
    expect(JSON.stringify([lines, await t.sql('outbox').select('last_error'), attempts])).not.toContain('aisyah@');
  });

  it('e-mails the payer a receipt after a payment', async () => {
    const { smtp, t } = await withSmtp();
    const { data } = await t.a.client.POST('/payment-links', { body: linkBody });
    const payer = new Payer(t.url);
    const url = new URL(data!.data.payment_url);
    const paid = await payer.submit(await payer.open(url.pathname + url.search), { name: 'Aisyah', ...GOOD_CARD });
    expect(paid.status).toBe(303);
    const [mail] = await waitFor('the receipt', () => smtp.messages.length && smtp.messages);
    expect(mail!.to).toMatchObject({ value: [{ address: 'aisyah@example.com' }] });
    expect(mail!.subject).toBe('Receipt: RM 1,234.56 to Business A');
    // The merchant's reference, which the payer can quote to the merchant, and the receipt's own number
    // (the payment's id: an open link's reference is shared by every payer, so only the id names this payment).
    expect(mail!.text).toContain('Payment reference: INV-1001');
    expect(mail!.text).toContain(`Receipt number: ${new URL(paid.location!).searchParams.get('payment_id')!}`);
    expect(mail!.text).toContain('VISA ending in 4242');
    expect(mail!.text).not.toContain('4242424242424242');
  });

  it("answers payers' replies to the business's support e-mail, and the receipt leads back to the merchant's site", async () => {
    const { smtp, t } = await withSmtp();
    await t.a.client.PATCH('/business', { body: { support_email: 'hello@ahseng.example.com' } });
    const { data } = await t.a.client.POST('/payment-links', {
      body: { ...linkBody, send_email: true, redirect_url: 'https://shop.ahseng.example.com/orders/1001/paid?x=1' },
    });
    const [request] = await waitFor('the payment request', () => smtp.messages.length && smtp.messages);
    expect(request!.replyTo).toMatchObject({ value: [{ address: 'hello@ahseng.example.com' }] });
    expect(request!.from).toMatchObject({ value: [{ address: 'billing@acme.test' }] });

    const payer = new Payer(t.url);
    const url = new URL(data!.data.payment_url);
    await payer.submit(await payer.open(url.pathname + url.search), { name: 'Aisyah', ...GOOD_CARD });
    const receipt = (await waitFor('the receipt', () => smtp.messages.length === 2 && smtp.messages))[1]!;
    expect(receipt.subject).toBe('Receipt: RM 1,234.56 to Business A');
    expect(receipt.replyTo).toMatchObject({ value: [{ address: 'hello@ahseng.example.com' }] });
    expect(receipt.text).toContain('Back to Business A:\nhttps://shop.ahseng.example.com/\n');
    expect(receipt.html).toContain('href="https://shop.ahseng.example.com/"');
  });

  it("leads back to the business's website when the link has no redirect_url, and to the link's own site before it", async () => {
    const { smtp, t } = await withSmtp();
    await t.a.client.PATCH('/business', { body: { website_url: 'https://www.ahseng.example.com/about' } });
    const pay = async (redirect_url?: string) => {
      const { data } = await t.a.client.POST('/payment-links', { body: { ...linkBody, ...(redirect_url ? { redirect_url } : {}) } });
      const url = new URL(data!.data.payment_url);
      const seen = smtp.messages.length;
      const payer = new Payer(t.url);
      await payer.submit(await payer.open(url.pathname + url.search), { name: 'Aisyah', ...GOOD_CARD });
      return (await waitFor('the receipt', () => smtp.messages.length > seen && smtp.messages))[seen]!;
    };
    const plain = await pay();
    expect(plain.text).toContain('Back to Business A:\nhttps://www.ahseng.example.com/about\n');
    expect(plain.html).toContain('href="https://www.ahseng.example.com/about"');
    const redirected = await pay('https://shop.ahseng.example.com/orders/1001/paid');
    expect(redirected.text).toContain('Back to Business A:\nhttps://shop.ahseng.example.com/\n');
  });
});

describe('payment link e-mail without SMTP_URL (the embedded default)', () => {
  it('writes each message as an .eml file a developer can open', async () => {
    t = await serviceWith();
    const link = await create.paymentLink(t.a, { ...linkBody, send_email: true });
    const mailDir = join(t.dir, 'mail');
    const [file] = await waitFor('the .eml file', () => {
      try {
        const files = readdirSync(mailDir).filter((name) => name.endsWith('.eml'));
        return files.length && files;
      } catch {
        return undefined;
      }
    });
    const mail = await simpleParser(readFileSync(join(mailDir, file!)));
    expect(mail.to).toMatchObject({ value: [{ address: 'aisyah@example.com' }] });
    expect(mail.text).toContain(link.payment_url);
    expect(mail.html).toBeTruthy();
  });
});
