// A service on 127.0.0.1 over a fresh SQLite database, seeded as a small merchant's would be, for the
// console's screenshots (scripts/console-screenshots.ts) and its bench (npm run bench -- --console):
// an owner who signs in with a password, payment links (some paid, one refunded in part), an open link
// paid by many payers, and a viewer. Links and refunds go through the API with a
// key; payments through the card payment use case, as the sandbox's pay page takes them.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPaymentsClient } from '../client/index.js';
import { checkCard } from '../server/acquirers/cards.js';
import { silentLogger } from '../server/logger.js';
import { startService } from '../server/start.js';
import { issueKey } from '../server/store/api-keys.js';
import { findOrCreateBusiness } from '../server/store/businesses.js';
import { createMember } from '../server/usecases/members/accounts.js';
import { payByCard } from '../server/usecases/payer/card-form.js';
import type { PaymentTarget } from '../server/usecases/payer/pay-page.js';

export const OWNER = { email: 'owner@kedai.example.com', password: 'plum-orbit-kettle-42' };

export interface SeededConsole {
  url: string;
  key: string;
  paymentIds: string[];
  close(): Promise<void>;
}

const PAYERS = ['aisyah', 'wei.ling', 'rajesh', 'siti', 'daniel', 'mei', 'arjun', 'farah', 'kumar', 'lina'];

export async function startSeededConsole(options: { openLinkPayments?: number } = {}): Promise<SeededConsole> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-console-'));
  const service = await startService({
    databaseUrl: `sqlite:${join(dir, 'console.sqlite')}`,
    port: 0,
    host: '127.0.0.1',
    mail: { mailDir: join(dir, 'mail') },
    logger: silentLogger(),
    rateLimit: { perSecond: 1_000_000 },
  });
  try {
    const business = await findOrCreateBusiness(service.db, 'Kedai Kopi Ah Seng');
    const { key } = await issueKey(service.db, business.id, { name: 'Shop website' });
    const made = await createMember(service.context, { businessId: business.id, role: 'owner', ...OWNER });
    if (made.kind !== 'created') throw new Error(`the owner: ${made.message}`);
    const viewer = await createMember(service.context, {
      businessId: business.id,
      role: 'viewer',
      email: 'accounts@kedai.example.com',
      password: 'quartz-meadow-lantern-19',
    });
    if (viewer.kind !== 'created') throw new Error(`the viewer: ${viewer.message}`);

    const client = createPaymentsClient({ baseUrl: `${service.url}/api`, apiKey: key });
    const card = checkCard({ number: '4242424242424242', expiry: '12/39', cvc: '123' });
    if (!card.ok) throw new Error('the sandbox test card does not pass the card checks');
    const paymentIds: string[] = [];
    const pay = async (target: PaymentTarget, amount: number, payer: string) => {
      const outcome = await payByCard(service.context, {
        target,
        attemptId: randomUUID(),
        amount,
        payerName: payer.replace('.', ' '),
        payerEmail: `${payer}@example.com`,
        card: card.card,
      });
      if (outcome.result !== 'paid') throw new Error(`a seeded payment was ${outcome.result}`);
      paymentIds.push(outcome.payment._id);
    };

    const invoices = [
      ['Catering for 40, 12 May', 125050],
      ['Coffee beans, 5 kg', 48000],
      ['Monthly office supply', 32000],
      ['Birthday cake order', 18500],
      ['Workshop seats (3)', 27000],
      ['Deposit: corporate event', 200000],
    ] as const;
    for (const [index, [title, amount]] of invoices.entries()) {
      const { data, error } = await client.POST('/payment-links', {
        body: { email: `${PAYERS[index]}@example.com`, currency: 'MYR', amount, title, reference: `INV-10${20 + index}` },
      });
      if (!data) throw new Error(`a payment link: ${JSON.stringify(error)}`);
      const link = data.data;
      if (index < 4)
        await pay(
          { kind: 'payment_link', id: link._id, businessId: business.id, currency: 'MYR', title, reference: link.reference, reference_2: null },
          amount,
          PAYERS[index]!,
        );
    }
    const { data: open, error } = await client.POST('/open-payment-links', {
      body: { currency: 'MYR', minimum_amount: '5.00', title: 'Pay what you like: community coffee', reference: 'COMMUNITY' },
    });
    if (!open) throw new Error(`an open link: ${JSON.stringify(error)}`);
    const openTarget: PaymentTarget = {
      kind: 'open_payment_link',
      id: open.data._id,
      businessId: business.id,
      currency: 'MYR',
      title: open.data.title,
      reference: 'COMMUNITY',
      reference_2: null,
    };
    for (let i = 0; i < (options.openLinkPayments ?? 12); i += 1) await pay(openTarget, 500 + ((i * 737) % 4500), PAYERS[i % PAYERS.length]!);

    const refunded = await client.POST('/payments/{payment_id}/refunds', {
      params: { path: { payment_id: paymentIds[0]! } },
      body: { amount: 25050, reason: 'Ten portions fewer than ordered' },
    });
    if (!refunded.data) throw new Error(`a refund: ${JSON.stringify(refunded.error)}`);

    return {
      url: service.url,
      key,
      paymentIds,
      async close() {
        await service.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
