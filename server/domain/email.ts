import { fullFormats } from 'ajv-formats/dist/formats.js';

export const EMAIL_MAX_LENGTH = 254;

/** The same e-mail rule the API applies through `format: email`, for the payer pages. */
export function isEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && (fullFormats.email as RegExp).test(value);
}
