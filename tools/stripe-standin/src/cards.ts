// Stripe's test cards (https://docs.stripe.com/testing) and what each does, for the hosted pages
// and for charges of saved cards. A number is never kept: only brand, last four digits and expiry.

export type CardBrand = 'visa' | 'mastercard' | 'amex';

/** A decline as Stripe reports it: the error's code and decline_code, and the message shown to the payer. */
export interface Decline {
  code: string;
  declineCode: string;
  message: string;
}

export interface TestCard {
  brand: CardBrand;
  funding: 'credit' | 'debit';
  country: string;
  /** Every charge declines (a card saved in setup mode still saves). */
  chargeDecline?: Decline;
  /** Saving the card in setup mode declines too. */
  setupDecline?: boolean;
  /** Its charges succeed, but refunds of them fail after first looking successful. */
  refundsFail?: boolean;
}

const generic: Decline = { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };
const declined = (decline: Decline): Pick<TestCard, 'chargeDecline' | 'setupDecline'> => ({ chargeDecline: decline, setupDecline: true });

const visa = { brand: 'visa', funding: 'credit', country: 'US' } as const;

export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  '4242424242424242': visa,
  '4000056655665556': { ...visa, funding: 'debit' },
  '4000004580000002': { ...visa, country: 'MY' },
  '5555555555554444': { brand: 'mastercard', funding: 'credit', country: 'US' },
  '5200828282828210': { brand: 'mastercard', funding: 'debit', country: 'US' },
  '378282246310005': { brand: 'amex', funding: 'credit', country: 'US' },
  '4000000000000002': { ...visa, ...declined(generic) },
  '4000000000009995': { ...visa, ...declined({ code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' }) },
  '4000000000009987': { ...visa, ...declined({ code: 'card_declined', declineCode: 'lost_card', message: 'Your card was declined.' }) },
  '4000000000009979': { ...visa, ...declined({ code: 'card_declined', declineCode: 'stolen_card', message: 'Your card was declined.' }) },
  '4000000000000069': { ...visa, ...declined({ code: 'expired_card', declineCode: 'expired_card', message: 'Your card has expired.' }) },
  '4000000000000127': { ...visa, ...declined({ code: 'incorrect_cvc', declineCode: 'incorrect_cvc', message: "Your card's security code is incorrect." }) },
  '4000000000000119': {
    ...visa,
    ...declined({
      code: 'processing_error',
      declineCode: 'processing_error',
      message: 'An error occurred while processing your card. Try again in a little bit.',
    }),
  },
  // "Attaching this card to a Customer object succeeds, but attempts to charge the customer fail."
  '4000000000000341': { ...visa, chargeDecline: generic },
  '4000000000005126': { ...visa, refundsFail: true },
};

/** A number that passes Luhn but is no test card: Stripe's test mode refuses real cards. */
export const LIVE_CARD_IN_TEST_MODE: Decline = {
  code: 'card_declined',
  declineCode: 'test_mode_live_card',
  message:
    'Your card was declined. Your request was in test mode, but used a non test (live) card. For a list of valid test cards, visit: https://stripe.com/docs/testing.',
};

export function passesLuhn(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i += 1) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The card a number is, or the decline a real card meets in test mode. */
export function testCard(number: string): TestCard {
  return (
    TEST_CARDS[number] ?? {
      brand: number.startsWith('4') ? 'visa' : number.startsWith('3') ? 'amex' : 'mastercard',
      funding: 'credit',
      country: 'US',
      ...declined(LIVE_CARD_IN_TEST_MODE),
    }
  );
}

/** FPX banks: Stripe's codes (payment_method.fpx.bank) and the names Checkout shows. */
export const FPX_BANKS: Readonly<Record<string, string>> = {
  affin_bank: 'Affin Bank',
  agrobank: 'AGRONet',
  alliance_bank: 'Alliance Bank (Personal)',
  ambank: 'AmBank',
  bank_islam: 'Bank Islam',
  bank_muamalat: 'Bank Muamalat',
  bank_rakyat: 'Bank Rakyat',
  bsn: 'BSN',
  cimb: 'CIMB Clicks',
  hong_leong_bank: 'Hong Leong Connect',
  hsbc: 'HSBC Bank',
  kfh: 'KFH',
  maybank2u: 'Maybank2u',
  ocbc: 'OCBC Bank',
  public_bank: 'Public Bank',
  rhb: 'RHB Now',
  standard_chartered: 'Standard Chartered',
  uob: 'UOB Bank',
};
