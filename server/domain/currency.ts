// ISO 4217 codes as known to the runtime's ICU data (Node 20 ships ICU 7x): current codes only, no
// withdrawn ones such as DEM. XDR and XSU are accounting units, not something a payer can pay in.
const NOT_PAYABLE = new Set(['XDR', 'XSU']);
const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency').filter((code) => !NOT_PAYABLE.has(code)));

export function isCurrencyCode(value: string): boolean {
  return CODES.has(value);
}
