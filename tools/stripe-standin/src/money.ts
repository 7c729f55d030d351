// Amounts in a currency's minor unit, written as Stripe writes them in messages and on its pages.

/** 2500 usd -> "$25.00"; 1000 myr -> "MYR 10.00"; 500 jpy -> "¥500". */
export function money(minor: number, currency: string): string {
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
  // Intl puts a no-break space after a currency code; Stripe's messages have a plain one.
  return format.format(minor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2)).replace(/\u00a0/g, ' ');
}
