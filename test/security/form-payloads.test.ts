// Text that makes a backtracking pattern slow, posted anonymously in every field of every payer form
// (the expiry pattern of old spent over a second of the event loop on one such post, for every
// tenant): each is refused as the ordinary form error page, nothing is charged or saved, and the
// form's other fields are still checked. That no pattern sees the text at all is asserted in
// test/unit/payer-form.test.ts; timing is never asserted.
import { describe, expect, it } from 'vitest';
import { listPaymentsForLink } from '../../server/store/payments.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

const t = useService();

const PAYLOAD = '1' + ' '.repeat(16_000) + 'x';
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** The message each field shows for an over-long value. */
const TOO_LONG: Record<string, string> = {
  name: 'The name must not be longer than 100 characters.',
  email: 'The email must not be longer than 254 characters.',
  amount: 'Enter an amount, for example 25.00.',
  card_number: 'The card number is not valid.',
  expiry: 'Enter the expiry date as MM/YY.',
  cvc: 'The CVC must be 3 or 4 digits.',
};

async function postPayload(path: string, valid: Record<string, string>, field: string) {
  const payer = new Payer(t.url);
  const form = await payer.open(path);
  expect(form.status).toBe(200);
  return payer.submit(form, { ...valid, [field]: PAYLOAD });
}

function expectFormError(page: { status: number; html: string }, field: string) {
  expect(page.status).toBe(422);
  expect(page.html).toContain('Please correct the highlighted fields.');
  expect(page.html).toContain(`<span class="error" id="${field}_error">${TOO_LONG[field]}</span>`);
  expect(page.html).toContain('<form method="post"');
  expect(page.html).not.toContain(PAYLOAD.slice(0, 200));
}

describe('a slow-pattern payload in any field of a payer form', () => {
  it.each(['name', 'card_number', 'expiry', 'cvc'])('payment link page, %s: the ordinary 422 form page; nothing charged', async (field) => {
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7' });
    const page = await postPayload(pathOf(link.payment_url), { name: 'Ali', ...GOOD_CARD }, field);
    expectFormError(page, field);
    expect(await listPaymentsForLink(t.service.db, link._id)).toEqual([]);
  });

  it.each(['amount', 'name', 'email', 'card_number', 'expiry', 'cvc'])('open link page, %s: the ordinary 422 form page; nothing charged', async (field) => {
    const created = await create.openLink(t.a, { minimum_amount: '10.00' });
    const page = await postPayload(pathOf(created.payment_url), { amount: '25.00', name: 'Ali', email: 'ali@example.com', ...GOOD_CARD }, field);
    expectFormError(page, field);
    expect(Number((await t.sql('payments').where({ open_payment_link_id: created._id }).count({ n: '*' }))[0]!.n)).toBe(0);
  });

  it.each(['name', 'card_number', 'expiry', 'cvc'])('activation page, %s: the ordinary 422 form page; no card saved', async (field) => {
    const { data } = await t.a.client.POST('/tokenizations/create-token', {
      body: { email: 'payer@example.com', title: 'Plan', description: 'Card for the plan' },
    });
    const page = await postPayload(new URL(data!.data.activation_url).pathname, { name: 'Ali', ...GOOD_CARD }, field);
    expectFormError(page, field);
    const read = await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: data!.data._id } } });
    expect(read.data?.data.status).toBe('pending');
  });

  it("an over-long field is reported together with the form's other mistakes", async () => {
    const created = await create.openLink(t.a, { minimum_amount: '10.00' });
    const page = await postPayload(pathOf(created.payment_url), { amount: '1', name: '', email: 'nope', ...GOOD_CARD, cvc: '1' }, 'expiry');
    expectFormError(page, 'expiry');
    for (const text of ['The amount must be at least RM 10.00.', 'Enter your name.', 'Enter a valid email address.', 'The CVC must be 3 digits.'])
      expect(page.html).toContain(text);
  });
});
