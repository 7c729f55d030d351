// Every status the API's records carry, in words and with a colour. The key set is the union of the
// contract's status enums (generated from openapi.yaml): a status added to the spec and not worded
// here fails the console's typecheck instead of reaching a merchant as a code.
import type { components } from '@payment-collection/client';

type Schemas = components['schemas'];

export type Status =
  | Schemas['Payment']['status']
  | Schemas['Refund']['status']
  | Schemas['PaymentLink']['status']
  | Schemas['OpenPaymentLink']['state']
  | Schemas['Token']['status']
  | Schemas['Event']['status']
  | Schemas['DeliveryAttempt']['outcome']
  | Schemas['EndpointDelivery']['status']
  | Schemas['AuditEvent']['outcome']
  | Schemas['BalanceTransaction']['status']
  | Schemas['PayoutStatus']
  | Schemas['Payout']['reconciliation']['status']
  | Schemas['BankStatementLine']['outcome'];

export const STATUS_WORDS: Readonly<Record<Status, { words: string; color: string }>> = {
  paid: { words: 'Paid', color: 'green' },
  Paid: { words: 'Paid', color: 'green' },
  succeeded: { words: 'Succeeded', color: 'green' },
  refused: { words: 'Refused', color: 'orange' },
  delivered: { words: 'Delivered', color: 'green' },
  Active: { words: 'Active', color: 'blue' },
  active: { words: 'Active', color: 'blue' },
  available: { words: 'Available', color: 'green' },
  pending: { words: 'Pending', color: 'yellow' },
  partially_refunded: { words: 'Partly refunded', color: 'orange' },
  refunded: { words: 'Refunded', color: 'gray' },
  Paused: { words: 'Paused', color: 'gray' },
  paused: { words: 'Paused', color: 'gray' },
  Expired: { words: 'Expired', color: 'gray' },
  expired: { words: 'Expired', color: 'gray' },
  exhausted: { words: 'Limit reached', color: 'gray' },
  failed: { words: 'Failed', color: 'red' },
  dead: { words: 'Gave up', color: 'red' },
  in_transit: { words: 'In transit', color: 'blue' },
  canceled: { words: 'Canceled', color: 'gray' },
  matched: { words: 'Matched', color: 'green' },
  expected: { words: 'Expected', color: 'blue' },
  explained: { words: 'Explained', color: 'gray' },
  mismatched: { words: 'Mismatched', color: 'red' },
  unmatched: { words: 'Unmatched', color: 'orange' },
  unreadable: { words: 'Unreadable', color: 'red' },
};

export function isStatus(value: string): value is Status {
  return Object.hasOwn(STATUS_WORDS, value);
}

/** A status in words; a code the console was built without (a newer server) is still made readable. */
export function statusWords(status: string): string {
  if (isStatus(status)) return STATUS_WORDS[status].words;
  const spaced = status.replaceAll('_', ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** The statuses of one enum as a filter's choices: the code as the value, the words as its label. */
export function statusChoices(statuses: readonly Status[]): Array<{ value: string; label: string }> {
  return statuses.map((status) => ({ value: status, label: STATUS_WORDS[status].words }));
}
