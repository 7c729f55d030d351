// What a merchant types to find a payment: part of a payer's e-mail or name or of a reference, or an
// amount as people write it ("15", "15.00", "RM 15.50", "1,500").
import { isStorableText } from './text.js';

/**
 * The fewest characters a substring search takes: both databases' search indexes are of trigrams
 * (three characters in a row), and a shorter term would have to be looked for in every row.
 */
export const SEARCH_MIN_LENGTH = 3;

/** An amount as a search term: an optional "RM", whole ringgit (thousands may be grouped by commas), and up to two decimals. */
const AMOUNT = /^(?:RM\s?)?([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.([0-9]{1,2}))?$/i;
const AMOUNT_MAX_LENGTH = 24;

const characters = (term: string) => [...term].length;

/** The amount a term reads as, in sen, or undefined when it reads as none (or as nothing paid). */
export function searchedAmount(term: string): bigint | undefined {
  if (term.length > AMOUNT_MAX_LENGTH) return undefined;
  const match = AMOUNT.exec(term);
  if (!match) return undefined;
  const [, whole = '', fraction = ''] = match;
  const cents = BigInt(whole.replace(/,/g, '')) * 100n + BigInt((fraction + '00').slice(0, 2));
  return cents > 0n ? cents : undefined;
}

/** The `search-term` format of openapi.yaml: storable text of at least SEARCH_MIN_LENGTH characters, or an amount of one or two digits ("15"). */
export function isSearchTerm(term: string): boolean {
  return isStorableText(term) && (characters(term) >= SEARCH_MIN_LENGTH || /^[0-9]{1,2}$/.test(term));
}

/** A search as the store takes it: the text to find inside the searched columns (when long enough), and the amount it reads as. */
export interface Search {
  text?: string;
  amount?: bigint;
}

export function searchOf(term: string): Search {
  return { text: characters(term) >= SEARCH_MIN_LENGTH ? term : undefined, amount: searchedAmount(term) };
}
