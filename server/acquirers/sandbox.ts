// The built-in acquirer, a card acquirer in test mode. It never moves money; which documented test
// card is used decides the outcome, as in Stripe's and Adyen's test modes. Any other number that
// passes the Luhn check is declined, so a real card typed into the sandbox by mistake goes nowhere.
import { randomBytes } from 'node:crypto';
import type { Card } from './cards.js';
import type {
  AuthorizeRequest,
  AuthorizeResult,
  CardFormAcquirer,
  ChargeRequest,
  ChargeResult,
  DeclineCode,
  RefundRequest,
  RefundResult,
  SaveCardResult,
} from './acquirer.js';

/**
 * `later` is what happens after the card was taken or saved: charging the saved card is declined, or
 * refunding the payment fails. The sandbox keeps no state (several instances share no memory), so
 * it writes `later` into the references it hands out and reads it back from them.
 */
type Later = 'decline_charges' | 'expire' | 'fail_refunds';
type Behaviour = { outcome: 'succeed'; later?: Later } | { outcome: 'decline'; code: DeclineCode; message: string };

const LATER_TAGS: Record<Later, string> = { decline_charges: 'dcl', expire: 'exp', fail_refunds: 'rfl' };
const LATER_BY_TAG = new Map(Object.entries(LATER_TAGS).map(([later, tag]) => [tag, later as Later]));

function reference(prefix: string, later: Later | undefined): string {
  return `${prefix}_${later ? `${LATER_TAGS[later]}_` : ''}${randomBytes(12).toString('hex')}`;
}

function laterOf(acquirerReference: string): Later | undefined {
  const tag = /^sbx_[a-z]+_([a-z]{3})_[0-9a-f]+$/.exec(acquirerReference)?.[1];
  return tag ? LATER_BY_TAG.get(tag) : undefined;
}

/** Documented in docs/integrating.md (the sandbox's test cards) and on every payment page. */
export const SANDBOX_TEST_CARDS: Record<string, { description: string; behaviour: Behaviour }> = {
  '4242424242424242': { description: 'Visa: succeeds', behaviour: { outcome: 'succeed' } },
  '5555555555554444': { description: 'Mastercard: succeeds', behaviour: { outcome: 'succeed' } },
  '378282246310005': { description: 'American Express: succeeds (4-digit CVC)', behaviour: { outcome: 'succeed' } },
  '4000000000000002': { description: 'Visa: declined', behaviour: { outcome: 'decline', code: 'card_declined', message: 'Your card was declined.' } },
  '4000000000009995': {
    description: 'Visa: declined for insufficient funds',
    behaviour: { outcome: 'decline', code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  },
  '4000000000000119': {
    description: 'Visa: fails with a processing error',
    behaviour: { outcome: 'decline', code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
  },
  '4000000000000341': {
    description: 'Visa: saves on a token, but charging it is declined',
    behaviour: { outcome: 'succeed', later: 'decline_charges' },
  },
  '4000000000000069': {
    description: 'Visa: saves on a token, but has expired by the time it is charged',
    behaviour: { outcome: 'succeed', later: 'expire' },
  },
  '4000000000005126': {
    description: 'Visa: succeeds, but its refunds fail',
    behaviour: { outcome: 'succeed', later: 'fail_refunds' },
  },
};

const CHARGE_DECLINES: Partial<Record<Later, { code: DeclineCode; message: string }>> = {
  decline_charges: { code: 'card_declined', message: 'Your card was declined.' },
  expire: { code: 'expired_card', message: 'Your card has expired.' },
};

const NOT_A_TEST_CARD: Behaviour = {
  outcome: 'decline',
  code: 'test_card_required',
  message: 'Your card was declined: this is a sandbox, use one of the test cards.',
};

function behaviourOf(card: Card): Behaviour {
  return SANDBOX_TEST_CARDS[card.number]?.behaviour ?? NOT_A_TEST_CARD;
}

export class SandboxAcquirer implements CardFormAcquirer {
  readonly name = 'sandbox';
  readonly checkout = 'card_form';

  /** `latencyMs` imitates an acquirer's round trip (SANDBOX_LATENCY_MS), for load and shutdown tests. */
  constructor(private readonly latencyMs = 0) {}

  private async roundTrip(): Promise<void> {
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    await this.roundTrip();
    const { card } = request;
    const behaviour = behaviourOf(card);
    if (behaviour.outcome === 'decline') return { outcome: 'declined', code: behaviour.code, message: behaviour.message, brand: card.brand, last4: card.last4 };
    return { outcome: 'authorized', authorizationId: reference('sbx_auth', behaviour.later), brand: card.brand, last4: card.last4 };
  }

  // The sandbox holds no funds, so settling a reservation has nothing to move.
  async capture(_authorizationId: string): Promise<void> {}

  async void(_authorizationId: string): Promise<void> {}

  async saveCard(card: Card): Promise<SaveCardResult> {
    await this.roundTrip();
    const behaviour = behaviourOf(card);
    if (behaviour.outcome === 'decline') return { outcome: 'declined', code: behaviour.code, message: behaviour.message };
    return {
      outcome: 'saved',
      card: {
        acquirerToken: reference('sbx_card', behaviour.later),
        brand: card.brand,
        last4: card.last4,
        expMonth: card.expMonth,
        expYear: card.expYear,
      },
    };
  }

  async chargeSavedCard(request: ChargeRequest): Promise<ChargeResult> {
    await this.roundTrip();
    const later = laterOf(request.acquirerToken);
    const decline = later && CHARGE_DECLINES[later];
    if (decline) return { outcome: 'declined', ...decline, chargeId: null };
    return { outcome: 'paid', chargeId: reference('sbx_auth', later) };
  }

  // The sandbox keeps no card: once the service forgets the reference, nothing can charge it.
  async forgetSavedCard(_acquirerToken: string): Promise<void> {
    await this.roundTrip();
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    await this.roundTrip();
    if (laterOf(request.paymentReference) === 'fail_refunds') {
      return { outcome: 'failed', code: 'refund_declined', message: 'The acquirer declined the refund.', refundId: null };
    }
    return { outcome: 'succeeded', refundId: reference('sbx_re', undefined) };
  }
}
