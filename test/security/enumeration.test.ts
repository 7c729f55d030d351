// Payer URLs carry record ids and no credential, so an id must not lead to its neighbours. Two
// businesses create links back to back (as the review did); every id near any of them, as a person
// guessing would try (one more, one less, a few more, the low "counter" bytes stepped, the same random
// part a second later), is a 404 page on both pay pages, and a page that does exist shows the payer's
// e-mail masked.
import { describe, expect, it } from 'vitest';
import { Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

const t = useService();

const hex24 = (value: bigint) => (value & ((1n << 96n) - 1n)).toString(16).padStart(24, '0');

/** The ids a person would try next to `id`. */
function neighbours(id: string): string[] {
  const value = BigInt(`0x${id}`);
  const guesses = new Set<string>();
  for (let step = 1n; step <= 5n; step += 1n) {
    guesses.add(hex24(value + step));
    guesses.add(hex24(value - step));
  }
  // ObjectId's last 3 bytes are a counter: step them alone, keeping everything before.
  const counter = value & 0xffffffn;
  for (const step of [1n, 2n, 3n, 16n, 256n]) guesses.add(hex24((value & ~0xffffffn) | ((counter + step) & 0xffffffn)));
  // The same random part with the timestamp a second either side.
  for (const seconds of [1n, -1n]) guesses.add(hex24(value + (seconds << 64n)));
  return [...guesses];
}

describe('ids minted back to back for two businesses lead nowhere but to themselves', () => {
  it('every neighbour of every link id is a 404 page on both pay pages', async () => {
    const links: { id: string; kind: 'payment' | 'open' }[] = [];
    for (let i = 0; i < 4; i += 1) {
      for (const tenant of [t.a, t.b]) {
        const paymentLink = await tenant.client.POST('/payment-links', {
          body: { email: `payer${i}@example.com`, currency: 'MYR', amount: 1000 + i, title: `Invoice ${i}` },
        });
        links.push({ id: paymentLink.data!.data._id, kind: 'payment' });
        const openLink = await tenant.client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: '10.00', title: `Donations ${i}` } });
        links.push({ id: openLink.data!.data._id, kind: 'open' });
      }
    }
    const real = new Set(links.map((link) => link.id));
    const payer = new Payer(t.url);
    for (const link of links) {
      const own = await payer.get(link.kind === 'payment' ? `/payment/pay?id=${link.id}` : `/payment/open-link/pay?id=${link.id}`);
      expect(own.status).toBe(200);
      for (const guess of neighbours(link.id)) {
        expect(real.has(guess), `${guess}, guessed from ${link.id}, is another record's id`).toBe(false);
        for (const path of [`/payment/pay?id=${guess}`, `/payment/open-link/pay?id=${guess}`]) {
          const page = await payer.get(path);
          expect(page.status, `${path} (guessed from ${link.id})`).toBe(404);
          expect(page.html).toContain('Payment link not found');
        }
      }
    }
  });

  it('the pay page shows the payer e-mail masked, never whole', async () => {
    const link = await create.paymentLink(t.b, { email: 'siti.aminah@example.com' });
    const page = await new Payer(t.url).get(`/payment/pay?id=${link._id}`);
    expect(page.html).toContain('value="s***@example.com"');
    expect(page.html).not.toContain('siti.aminah');
  });
});
