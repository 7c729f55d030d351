// ISO 4217 codes as known to the runtime's ICU data, less what no payer can pay in today: XDR and
// XSU are accounting units, and ICU still lists some codes withdrawn from ISO 4217 (CUC 2021,
// HRK 2023, SLL 2024, ZWL 2024, ANG 2025) that were replaced by CUP, EUR, SLE, ZWG and XCG.
const NOT_PAYABLE = new Set(['XDR', 'XSU', 'CUC', 'HRK', 'SLL', 'ZWL', 'ANG']);
const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency').filter((code) => !NOT_PAYABLE.has(code)));

export function isCurrencyCode(value: string): boolean {
  return CODES.has(value);
}
