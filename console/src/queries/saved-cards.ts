// Saved cards (tokenizations): the list and one card.
import { $api } from '../api/client.js';
import { everyQueryOf, type GetQuery } from './keys.js';

export type SavedCardsQuery = GetQuery<'/tokenizations'>;

/** Every page and filter of the saved cards list. */
export const savedCardsListKey = everyQueryOf('/tokenizations');

export function savedCardsQuery(query: SavedCardsQuery) {
  return $api.queryOptions('get', '/tokenizations', { params: { query } });
}

export function savedCardQuery(tokenId: string) {
  return $api.queryOptions('get', '/tokenizations/{token_id}', { params: { path: { token_id: tokenId } } });
}
