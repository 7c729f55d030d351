// The tokenization operations.
import type { components } from '../../generated/openapi.js';
import { parseCents } from '../domain/money.js';
import { activationUrl } from '../domain/payer-urls.js';
import { amountStringRule } from '../domain/rules.js';
import { HttpError } from '../http/errors.js';
import type { SomeHandlers } from '../http/operations.js';
import { chargeToken, type ChargeOutcome } from '../usecases/merchant/charges.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { keepingAnswers, renderedOnce } from '../usecases/platform/idempotency.js';
import { createToken, getToken, listTokenizations, removeSavedCard, type CardRemovalSettled, type TokenRecord } from '../usecases/merchant/tokenizations.js';
import { ok } from './envelope.js';
import { createdRange, pageOf, pageRequest, pageTooDeep } from './listing.js';
import { presentPayment } from './payments.js';

type Token = components['schemas']['Token'];

const CARD_REMOVED = "This token's card was removed; its payer must open the activation_url and save a card again before it can be charged.";

export function presentToken(publicUrl: string, record: TokenRecord): Token {
  return {
    _id: record._id,
    email: record.email,
    phone_no: record.phone_no,
    redirect_url: record.redirect_url,
    title: record.title,
    description: record.description,
    token: record.token,
    activation_url: activationUrl(publicUrl, record.token),
    status: record.status,
    card: record.card && {
      brand: record.card.brand as NonNullable<Token['card']>['brand'],
      last4: record.card.last4,
      exp_month: record.card.exp_month,
      exp_year: record.card.exp_year,
    },
    card_removed_at: record.card_removed_at,
    locale: record.locale,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** Names an acquirer as merchants know it. */
const ACQUIRER_NAMES: Record<string, string> = { stripe: 'Stripe' };

export function sandboxCardMessage(acquirer: string): string {
  return `The token id holds a card saved on the sandbox, which takes no money, and the business now takes payments through ${ACQUIRER_NAMES[acquirer] ?? acquirer}: create a new token for the payer to save a card.`;
}

const CHARGE_PENDING =
  "A charge on this card is still waiting for the payment provider's answer; remove the card once it has settled (payment.created or payment.failed).";

export const tokenizationHandlers = {
  createToken: {
    async handle({ body, business }, ctx, respond) {
      const record = await createToken(ctx, business.id, {
        email: body.email,
        phone_no: body.phone_no ?? null,
        redirect_url: body.redirect_url ?? null,
        title: body.title,
        description: body.description,
        locale: body.locale ?? null,
      });
      return respond.with200(ok(presentToken(ctx.publicUrl, record)));
    },
  },
  listTokenizations: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const result = await listTokenizations(
        ctx,
        business.id,
        { status: query['filter[status]'], email: query['filter[email]'], createdBetween: await createdRange(ctx, business.id, query) },
        page,
      );
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/tokenizations`, rawQuery, page, result, (record) => presentToken(ctx.publicUrl, record))));
    },
  },
  getToken: {
    async handle({ path, business }, ctx, respond) {
      const record = await getToken(ctx, business.id, path.token_id);
      return record ? respond.with200(ok(presentToken(ctx.publicUrl, record))) : respond.with404({ message: 'Token not found.' });
    },
  },
  removeTokenCard: {
    // The acquirer is asked outside any transaction; the removal keeps its answer in its own.
    atomicPhases: true,
    async handle({ path, business }, ctx, respond) {
      const reply = renderedOnce((removal: CardRemovalSettled) => {
        switch (removal.result) {
          case 'charge_pending':
            return respond.with409({ message: CHARGE_PENDING });
          case 'removed':
          case 'no_card':
            return respond.with200(ok(presentToken(ctx.publicUrl, removal.token)));
        }
      });
      const removal = await removeSavedCard(ctx, business.id, path.token_id, keepingAnswers(ctx, reply));
      switch (removal.result) {
        case 'not_found':
          return respond.with404({ message: 'Token not found.' });
        case 'charge_pending':
          return respond.with409({ message: CHARGE_PENDING });
        case 'acquirer_unavailable':
          // Thrown rather than answered, so the provider's error is logged with the request (as any 5xx).
          throw Object.assign(
            new HttpError(502, 'The payment provider did not confirm that it removed the card, so it is still saved. Try again in a moment.'),
            {
              cause: removal.error,
            },
          );
        case 'removed':
        case 'no_card':
          return respond.with200(ok(presentToken(ctx.publicUrl, removal.token)));
      }
    },
  },
  createCharge: {
    rules: [amountStringRule],
    atomicPhases: true,
    async handle({ path, body, business }, ctx, respond) {
      const reply = renderedOnce((outcome: ChargeOutcome) => {
        switch (outcome.result) {
          case 'not_found':
            return respond.with404({ message: 'Token not found.' });
          case 'not_active':
            return respond.with409({ message: 'This token has no saved card yet; its payer must open the activation_url and save one first.' });
          case 'card_removed':
            return respond.with409({ message: CARD_REMOVED });
          case 'sandbox_card':
            return respond.with422({ message: 'The given data was invalid.', errors: { token_id: [sandboxCardMessage(outcome.acquirer)] } });
          case 'declined': {
            const { success: _, ...envelope } = ok(presentPayment(outcome.payment));
            return respond.with402({ success: false, message: outcome.payment.failure_message ?? 'The charge was declined.', ...envelope });
          }
          case 'paid':
          case 'pending':
            return respond.with200(ok(presentPayment(outcome.payment)));
          case 'unanswered':
            return respond.with202(ok(presentPayment(outcome.payment)));
        }
      });
      const request = { amount: parseCents(body.amount), currency: body.currency, description: body.description ?? null, reference: body.reference ?? null };
      return reply(await chargeToken(ctx, business.id, path.token_id, request, keepingAnswers(ctx, reply)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
