// Money as the merchant reads it: `RM 1,250.50`. The API gives links' and payments' amounts in cents
// and collections' totals in currency units.
const SYMBOLS: Record<string, string> = { MYR: 'RM', SGD: 'S$', USD: 'US$' };

function grouped(units: number): string {
  return units.toLocaleString('en-MY', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

export function formatCents(cents: number, currency: string): string {
  return `${SYMBOLS[currency] ?? currency} ${grouped(cents / 100)}`;
}

export function formatUnits(units: number | string, currency: string): string {
  return `${SYMBOLS[currency] ?? currency} ${grouped(Number(units))}`;
}

/** What a merchant types (`12.50`, `12`, `1,250.5`) in cents, or undefined when it is not an amount. */
export function parseAmountToCents(text: string): number | undefined {
  const cleaned = text.replace(/[,\s]/g, '');
  if (!/^\d{1,9}(?:\.\d{1,2})?$/.test(cleaned)) return undefined;
  const [whole, fraction = ''] = cleaned.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}
