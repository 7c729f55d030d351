// What the service may be asked about a card it took: never its number, only the four digits a
// payer recognises it by.

/** The `card-last4` format of openapi.yaml: exactly four ASCII digits (Laravel's `digits:4`). */
export function isCardLast4(value: string): boolean {
  return value.length === 4 && /^[0-9]{4}$/.test(value);
}
