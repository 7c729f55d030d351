// Removing a token's saved card (DELETE /api/tokenizations/{id}/card): the acquirer lets go of it, the
// token forgets it (brand, last four, expiry, reference) and is pending again, token.card_removed is
// sent once; repeating it changes nothing, a charge is a clear 409, the activation_url takes a new
// card, another business's token is a 404, and a charge still waiting for the acquirer keeps the card.
import { describe, expect, it } from 'vitest';
import type { TokenCardRemovedEvent } from '../../client/webhooks.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { PAYMENT_PENDING } from '../../server/domain/statuses.js';
import { assertSchema } from '../support/contract.js';
import { GOOD_CARD, Payer, submitPage } from '../support/payer.js';
import { raw, useServicePerTest } from '../support/service.js';
import { useWebhookService } from '../support/webhook-service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const MASTERCARD = { card_number: '5555 5555 5555 4444', expiry: '12/39', cvc: '123' };

const w = useWebhookService();
const { t } = w;

async function activeToken(card = GOOD_CARD, client = t.a.client) {
  const { data } = await client.POST('/tokenizations/create-token', { body: { email: 'payer@example.com', title: 'Monthly plan', description: 'Plan' } });
  expect((await submitPage(t.url, data!.data.activation_url, { name: 'Aisyah', ...card })).status).toBe(303);
  return data!.data;
}

const removeCard = (tokenId: string, client = t.a.client) => client.DELETE('/tokenizations/{token_id}/card', { params: { path: { token_id: tokenId } } });
const charge = (tokenId: string) =>
  t.a.client.POST('/tokenizations/{token_id}/charges', { params: { path: { token_id: tokenId } }, body: { amount: 1500, currency: 'MYR' } });
const removals = (tokenId: string) =>
  w.events().filter((event): event is TokenCardRemovedEvent => event.event === 'token.card_removed' && event.data.token_id === tokenId);

describe('DELETE /api/tokenizations/{token_id}/card', () => {
  it('forgets the card: the token is pending without a card, the row holds nothing of it, and token.card_removed is sent once', async () => {
    const token = await activeToken();
    const removed = await removeCard(token._id);
    expect(removed.response.status).toBe(200);
    const body = removed.data!.data;
    expect(body).toMatchObject({ _id: token._id, status: 'pending', card: null, activation_url: token.activation_url });
    expect(body.card_removed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    const [row] = await t.sql('tokens').where({ _id: token._id });
    expect(row).toMatchObject({
      status: 'pending',
      card_brand: null,
      card_last4: null,
      card_exp_month: null,
      card_exp_year: null,
      card_reference: null,
      card_provider: null,
    });

    const [event] = await waitFor('token.card_removed', () => removals(token._id).length > 0 && removals(token._id));
    await assertSchema('TokenCardRemovedEvent', event);
    expect(event!.data).toMatchObject({
      token_id: token._id,
      token_status: 'pending',
      card_brand: 'visa',
      card_last4: '4242',
      removed_at: body.card_removed_at,
    });

    // Again: the same token, nothing sent.
    const again = await removeCard(token._id);
    expect(again.response.status).toBe(200);
    expect(again.data!.data).toEqual({ ...body, updated_at: body.updated_at });
    await t.service.worker!.drained();
    expect(removals(token._id)).toHaveLength(1);
    const read = await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: token._id } } });
    expect(read.data!.data).toEqual(body);
  });

  it('a charge afterwards is a 409 that says the card was removed; nothing is charged', async () => {
    const token = await activeToken();
    await removeCard(token._id);
    const refused = await charge(token._id);
    expect(refused.response.status).toBe(409);
    expect(refused.error).toEqual({
      message: "This token's card was removed; its payer must open the activation_url and save a card again before it can be charged.",
    });
    expect(await t.sql('payments').where({ tokenization_id: token._id })).toEqual([]);
  });

  it('the activation_url takes a new card, which charges', async () => {
    const token = await activeToken();
    await removeCard(token._id);
    const url = new URL(token.activation_url);
    const payer = new Payer(t.url);
    const form = await payer.open(url.pathname);
    expect(form.status).toBe(200);
    expect(form.html).toContain('name="card_number"');
    expect((await payer.submit(form, { name: 'Aisyah', ...MASTERCARD })).status).toBe(303);
    const read = (await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: token._id } } })).data!.data;
    expect(read).toMatchObject({ status: 'active', card: { brand: 'mastercard', last4: '4444' } });
    expect(read.card_removed_at).not.toBeNull();
    const paid = await charge(token._id);
    expect(paid.response.status).toBe(200);
    expect(paid.data!.data).toMatchObject({ status: 'paid', card_last4: '4444' });
  });

  it('another business’s token is a 404 and keeps its card; an unknown or malformed id is a 404', async () => {
    const token = await activeToken();
    const foreign = await removeCard(token._id, t.b.client);
    expect(foreign.response.status).toBe(404);
    expect(foreign.error).toEqual({ message: 'Token not found.' });
    const read = (await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: token._id } } })).data!.data;
    expect(read).toMatchObject({ status: 'active', card: { last4: '4242' }, card_removed_at: null });
    expect((await removeCard('6284ff16d4b1c2a3e4f5ffff')).response.status).toBe(404);
    expect((await raw(`${t.apiUrl}/tokenizations/not-an-id/card`, { method: 'DELETE', key: t.a.key })).status).toBe(404);
  });

  it('a token whose payer never saved a card is answered as it is, and sends nothing', async () => {
    const created = await create.token(t.a, { title: 'Plan', description: 'Plan' });
    const answer = await removeCard(created._id);
    expect(answer.response.status).toBe(200);
    expect(answer.data!.data).toMatchObject({ status: 'pending', card: null, card_removed_at: null });
  });

  it('keeps the card while a charge on it waits for the acquirer (the sweep asks again with it): 409', async () => {
    const token = await activeToken();
    const paid = await charge(token._id);
    await t.sql('payments').where({ _id: paid.data!.data._id }).update({ status_id: PAYMENT_PENDING, provider_reference: null });
    const refused = await removeCard(token._id);
    expect(refused.response.status).toBe(409);
    expect(refused.error!.message).toMatch(/still waiting for the payment provider/);
    expect((await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: token._id } } })).data!.data.card).not.toBeNull();
  });
});

describe('DELETE /api/tokenizations/{token_id}/card when the acquirer does not let go', () => {
  const serviceWith = useServicePerTest();

  it('answers 502 and changes nothing: the card stays saved', async () => {
    class Unreachable extends SandboxAcquirer {
      override async forgetSavedCard(): Promise<void> {
        throw new Error('connect ETIMEDOUT');
      }
    }
    const down = await serviceWith({ provider: new Unreachable() });
    const created = await create.token(down.a, { title: 'Plan', description: 'Plan' });
    expect((await submitPage(down.url, created.activation_url, { name: 'Aisyah', ...GOOD_CARD })).status).toBe(303);
    const failed = await down.a.client.DELETE('/tokenizations/{token_id}/card', { params: { path: { token_id: created._id } } });
    expect(failed.response.status).toBe(502);
    expect(failed.error).toEqual({ message: 'The payment provider did not confirm that it removed the card, so it is still saved. Try again in a moment.' });
    const read = (await down.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: created._id } } })).data!.data;
    expect(read).toMatchObject({ status: 'active', card: { last4: '4242' }, card_removed_at: null });
  });
});
