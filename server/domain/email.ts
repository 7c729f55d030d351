import { fullFormats } from 'ajv-formats/dist/formats.js';

export const EMAIL_MAX_LENGTH = 254;

/** The same e-mail rule the API applies through `format: email`, for the payer pages. */
export function isEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && (fullFormats.email as RegExp).test(value);
}

/**
 * An address as the pay page shows it to whoever opens the link: the first character of the local
 * part, then `***`, then the domain (`p***@example.com`), enough for the payer to recognise their own
 * address. A local part of one or two characters is hidden whole (`***@example.com`): showing its
 * first character would give away half of it or all of it.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return '***';
  const local = Array.from(email.slice(0, at));
  return `${local.length >= 3 ? local[0] : ''}***${email.slice(at)}`;
}
