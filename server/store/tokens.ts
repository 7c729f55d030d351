import { newId, newTokenValue } from '../domain/ids.js';
import type { Locale } from '../domain/locales.js';
import type { Page, PageRequest } from '../domain/paging.js';
import type { DateRange } from '../domain/time.js';
import type { Executor } from './executor.js';
import { fetchFixedPage, listedThrough } from './pagination.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export type TokenStatus = 'pending' | 'active';

export interface TokenFields {
  email: string;
  phone_no: string | null;
  redirect_url: string | null;
  title: string;
  description: string;
  /** The language its payer is expected to read on the activation page; null: the business's default. */
  locale: Locale | null;
}

export interface TokenCard {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

export interface TokenRecord extends TokenFields {
  _id: string;
  business_id: number;
  token: string;
  status: TokenStatus;
  /** Brand, last four and expiry once active; never the number. */
  card: TokenCard | null;
  /** When the last saved card was removed; null if none was. */
  card_removed_at: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = [
  '_id',
  'business_id',
  'email',
  'phone_no',
  'redirect_url',
  'title',
  'description',
  'token',
  'status',
  'card_brand',
  'card_last4',
  'card_exp_month',
  'card_exp_year',
  'card_removed_at',
  'locale',
  'created_at',
  'updated_at',
];

interface TokenRow extends TokenFields {
  _id: string;
  business_id: number;
  token: string;
  status: TokenStatus;
  card_brand: string | null;
  card_last4: string | null;
  card_exp_month: number | null;
  card_exp_year: number | null;
  card_removed_at: string | Date | null;
  created_at: string;
  updated_at: string;
}

function toRecord(row: TokenRow): TokenRecord {
  const { card_brand, card_last4, card_exp_month, card_exp_year, ...rest } = row;
  return {
    ...rest,
    business_id: Number(row.business_id),
    card: card_brand && card_last4 ? { brand: card_brand, last4: card_last4, exp_month: Number(card_exp_month), exp_year: Number(card_exp_year) } : null,
    card_removed_at: row.card_removed_at ? toIsoMicros(row.card_removed_at) : null,
    locale: row.locale ?? null,
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

export async function insertToken(db: Executor, businessId: number, fields: TokenFields): Promise<TokenRecord> {
  const now = nowIso();
  const row: TokenRow = {
    _id: newId(),
    business_id: businessId,
    ...fields,
    token: newTokenValue(),
    status: 'pending',
    card_brand: null,
    card_last4: null,
    card_exp_month: null,
    card_exp_year: null,
    card_removed_at: null,
    created_at: now,
    updated_at: now,
  };
  await db.run(db.sql('tokens').insert(row));
  return toRecord(row);
}

export interface TokenFilters {
  status?: TokenStatus;
  email?: string;
  createdBetween?: DateRange;
}

// The selective filter first: its index is the one read when both are set.
const LIST_FILTERS = ['email', 'status'] as const;

/** A page of the business's tokens, each filter read through its index (migrations/0043_token_list_indexes.ts). */
export async function listTokens(db: Executor, businessId: number, filters: TokenFilters, page: PageRequest): Promise<Page<TokenRecord>> {
  const set = LIST_FILTERS.filter((name) => filters[name] !== undefined);
  const index = set.length > 0 ? `tokens_${set[0]}_page_index` : 'tokens_page_index';
  const dated = filters.createdBetween !== undefined;
  return fetchFixedPage<TokenRecord, 'businessId' | 'status' | 'email' | 'createdFrom' | 'createdTo'>(
    db,
    `tokens list ${set.join(',')}${dated ? ' dated' : ''}`,
    (_sql, param) => {
      const query = listedThrough(db, 'tokens', index)
        .where({ business_id: param('businessId') })
        .select(COLUMNS);
      for (const name of set) query.where(name, param(name));
      if (dated) query.where('created_at', '>=', param('createdFrom')).andWhere('created_at', '<=', param('createdTo'));
      return query;
    },
    { businessId, status: filters.status, email: filters.email, createdFrom: filters.createdBetween?.start, createdTo: filters.createdBetween?.end },
    page,
    (row) => toRecord(row as unknown as TokenRow),
  );
}

export async function findToken(db: Executor, businessId: number, id: string): Promise<TokenRecord | undefined> {
  const row = await db.first<TokenRow>(db.sql('tokens').select(COLUMNS).where({ _id: id, business_id: businessId }));
  return row ? toRecord(row) : undefined;
}

/** For the activation page, which knows only the token value from its URL. */
export async function findTokenByValue(db: Executor, token: string): Promise<TokenRecord | undefined> {
  const row = await db.first<TokenRow>(db.sql('tokens').select(COLUMNS).where({ token }));
  return row ? toRecord(row) : undefined;
}

/** A card saved at an acquirer: what the acquirer names it by, and which acquirer (`sandbox`, `stripe`) holds it. */
export interface SavedCardReference {
  reference: string;
  acquirer: string;
}

/** Activates a pending token with a saved card and returns when; null when it was already active (a second submit). */
export async function activateToken(db: Executor, token: string, card: TokenCard & SavedCardReference): Promise<string | null> {
  const now = nowIso();
  const changed = await db.run(
    db.sql('tokens').where({ token, status: 'pending' }).update({
      status: 'active',
      card_brand: card.brand,
      card_last4: card.last4,
      card_exp_month: card.exp_month,
      card_exp_year: card.exp_year,
      card_reference: card.reference,
      card_provider: card.acquirer,
      updated_at: now,
    }),
  );
  return changed === 1 ? now : null;
}

/** The acquirer's reference of a token's saved card and the acquirer that holds it, to charge it; undefined while the token is not active. */
export async function findSavedCardReference(db: Executor, businessId: number, id: string): Promise<SavedCardReference | undefined> {
  const row = await db.first<{ card_reference: string | null; card_provider: string | null }>(
    db.sql('tokens').select('card_reference', 'card_provider').where({ _id: id, business_id: businessId, status: 'active' }),
  );
  return row?.card_reference ? { reference: row.card_reference, acquirer: row.card_provider ?? 'sandbox' } : undefined;
}

/**
 * Forgets the token's saved card (brand, last four, expiry, the acquirer's reference and acquirer)
 * if it still holds the card named by `reference` (null: a card saved before references were kept):
 * the token is pending again, ready for a new card.
 * When; null when the card was gone already (a concurrent removal, or a new card saved meanwhile).
 */
export async function forgetSavedCard(db: Executor, businessId: number, id: string, reference: string | null): Promise<string | null> {
  const now = nowIso();
  const active = db.sql('tokens').where({ _id: id, business_id: businessId, status: 'active' });
  const changed = await db.run(
    (reference === null ? active.whereNull('card_reference') : active.where({ card_reference: reference })).update({
      status: 'pending',
      card_brand: null,
      card_last4: null,
      card_exp_month: null,
      card_exp_year: null,
      card_reference: null,
      card_provider: null,
      card_removed_at: now,
      updated_at: now,
    }),
  );
  return changed === 1 ? now : null;
}

/** Holds the token's row until the transaction ends (PostgreSQL; SQLite runs one writer at a time): a charge and a card's removal take turns. */
export async function lockToken(db: Executor, businessId: number, id: string): Promise<void> {
  if (db.dialect === 'postgres') await db.all(db.sql('tokens').select('_id').where({ _id: id, business_id: businessId }).forUpdate());
}
