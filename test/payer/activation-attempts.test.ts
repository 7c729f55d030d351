// The activation form's attempt id makes a submit idempotent, as on the pay pages: the same form sent
// twice (a double click, a reload of the POST) asks the acquirer to save the card once and lands
// where the first submit did. A provider that counts and takes its time makes the submits overlap.
import { describe, expect, it } from 'vitest';
import type { Card } from '../../server/acquirers/cards.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { DECLINED_CARD, GOOD_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

class CountingProvider extends SandboxAcquirer {
  saves = 0;
  constructor() {
    super(200);
  }
  override async saveCard(card: Card) {
    this.saves += 1;
    return super.saveCard(card);
  }
}

const provider = new CountingProvider();
const t = useService({ provider });

const token = (body: Record<string, unknown> = {}, tenant = t.a) => create.token(tenant, { title: 'Plan', ...body });

const attempts = (tokenId: string) => t.sql('token_activation_attempts').where({ token_id: tokenId }).select('status', 'failure_code');

describe('activation attempts', () => {
  it('the same form submitted twice at once and once more after saves the card once; all three land where the first did', async () => {
    // Business B activates nothing else in this file, so its outbox holds this token's notifications only.
    const created = await token({ redirect_url: 'https://merchant.example.com/cards' }, t.b);
    const payer = new Payer(t.url);
    const form = await payer.open(new URL(created.activation_url).pathname);
    const before = provider.saves;
    const [first, second] = await Promise.all([payer.submit(form, { name: 'Aisyah', ...GOOD_CARD }), payer.submit(form, { name: 'Aisyah', ...GOOD_CARD })]);
    const third = await payer.submit(form, { name: 'Aisyah', ...GOOD_CARD });
    expect(provider.saves - before).toBe(1);
    expect([first.status, second.status, third.status]).toEqual([303, 303, 303]);
    expect(second.location).toBe(first.location);
    expect(third.location).toBe(first.location);
    expect(new URL(first.location!).searchParams.get('token_status')).toBe('active');
    expect(await attempts(created._id)).toEqual([{ status: 'saved', failure_code: null }]);
    // Once: one e-mail to the payer, and the event once (recorded though B has no webhook endpoint).
    const outbox = (await t.sql('outbox').where({ business_id: t.b.business.id, topic: 'token.activated' }).select('channel')) as { channel: string }[];
    expect(outbox.map((row) => row.channel).sort()).toEqual(['email', 'webhook']);
  });

  it('a declined attempt submitted again is answered with the same decline, without asking the acquirer again; a new form can try again', async () => {
    const created = await token();
    const payer = new Payer(t.url);
    const form = await payer.open(new URL(created.activation_url).pathname);
    const before = provider.saves;
    const declined = await payer.submit(form, { name: 'Ali', ...DECLINED_CARD });
    const again = await payer.submit(form, { name: 'Ali', ...GOOD_CARD });
    expect([declined.status, again.status]).toEqual([402, 402]);
    expect(again.html).toContain('Your card was declined.');
    expect(provider.saves - before).toBe(1);
    expect(await attempts(created._id)).toEqual([{ status: 'declined', failure_code: 'card_declined' }]);

    const retry = await payer.open(new URL(created.activation_url).pathname);
    expect(retry.attemptId).not.toBe(form.attemptId);
    expect((await payer.submit(retry, { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
    expect(provider.saves - before).toBe(2);
  });

  it("an attempt id from another token's form is refused, and saves nothing", async () => {
    const [one, other] = [await token(), await token()];
    const payer = new Payer(t.url);
    const used = await payer.open(new URL(one.activation_url).pathname);
    expect((await payer.submit(used, { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
    const before = provider.saves;
    const replayed = await payer.submit({ ...used, action: new URL(other.activation_url).pathname }, { name: 'Ali', ...GOOD_CARD });
    expect(replayed.status).toBe(403);
    expect(provider.saves).toBe(before);
    expect(await attempts(other._id)).toEqual([]);
  });
});
