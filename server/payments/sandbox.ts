// The built-in provider: a card acquirer in test mode. It never moves money; which documented test
// card is used decides the outcome, as in Stripe's and Adyen's test modes. Any other number that
// passes the Luhn check is declined, so a real card typed into the sandbox by mistake goes nowhere.
import { randomBytes } from 'node:crypto';
import type { Card } from './cards.js';
import type { AuthorizeRequest, AuthorizeResult, DeclineCode, PaymentProvider, SaveCardResult } from './provider.js';

type Behaviour = { outcome: 'succeed' } | { outcome: 'decline'; code: DeclineCode; message: string };

/** Documented in README ("Sandbox test cards") and on every payment page. */
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
};

const NOT_A_TEST_CARD: Behaviour = {
  outcome: 'decline',
  code: 'test_card_required',
  message: 'Your card was declined: this is a sandbox, use one of the test cards.',
};

function behaviourOf(card: Card): Behaviour {
  return SANDBOX_TEST_CARDS[card.number]?.behaviour ?? NOT_A_TEST_CARD;
}

export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';

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
    const authorizationId = `sbx_auth_${randomBytes(12).toString('hex')}`;
    return { outcome: 'authorized', authorizationId, brand: card.brand, last4: card.last4 };
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
        providerToken: `sbx_card_${randomBytes(12).toString('hex')}`,
        brand: card.brand,
        last4: card.last4,
        expMonth: card.expMonth,
        expYear: card.expYear,
      },
    };
  }
}
