// Idempotency-Key records (Stripe's semantics): the first request with a key reserves it; once it has
// run, its response is stored for 24 hours and replayed to retries with the same request; the same
// key with another request is refused; a retry while the first is still running is refused.
// A stored response is sealed (server/secrets/seal.ts): some carry a secret shown once, such as a
// new webhook endpoint's signing key, which must not sit in clear in the database until it expires.
import { isoMicros } from '../domain/time.js';
import type { MasterKey } from '../secrets/master-key.js';
import { isSealed, openSecret, sealSecret, type OpeningKeys } from '../secrets/seal.js';
import type { Executor } from './executor.js';
import { isUniqueViolation } from './errors.js';
import { toIsoMicros } from './timestamps.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** A reservation older than this was left by a process that died mid-request; a retry may take it over. */
export const ABANDONED_AFTER_MS = 60_000;

export type Reservation = { kind: 'reserved'; id: number } | { kind: 'replay'; status: number; body: unknown } | { kind: 'mismatch' } | { kind: 'in_flight' };

/** Stored responses are sealed under a key of their own, not the one that seals webhook keys. */
const RESPONSE_PURPOSE = 'idempotent-responses/v1';

/** Binds a sealed response to its row: copied into another key's row, it does not open. */
const responseContext = (id: number) => `idempotency_keys.response_body:${id}`;

function sealResponse(key: MasterKey, id: number, body: unknown): string {
  return sealSecret(key, JSON.stringify(body ?? null), responseContext(id), RESPONSE_PURPOSE);
}

function openResponse(keys: OpeningKeys, id: number, stored: string | null): unknown {
  if (stored === null) return null;
  // Responses stored before sealing are plain JSON, which never starts the way a sealed value does.
  return JSON.parse(isSealed(stored) ? openSecret(keys, stored, responseContext(id), RESPONSE_PURPOSE) : stored);
}

interface KeyRow {
  id: number;
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: string | null;
  locked_at: string;
}

export async function reserveKey(
  db: Executor,
  businessId: number,
  key: string,
  requestHash: string,
  secretsKeys: OpeningKeys,
  now = new Date(),
): Promise<Reservation> {
  const nowText = isoMicros(now);
  await db.run(db.sql('idempotency_keys').where({ business_id: businessId, idempotency_key: key }).andWhere('expires_at', '<=', nowText).delete());
  try {
    const [row] = await db.all<{ id: number }>(
      db
        .sql('idempotency_keys')
        .insert({
          business_id: businessId,
          idempotency_key: key,
          request_hash: requestHash,
          state: 'in_flight',
          locked_at: nowText,
          created_at: nowText,
          expires_at: isoMicros(new Date(now.getTime() + IDEMPOTENCY_TTL_MS)),
        })
        .returning('id'),
    );
    return { kind: 'reserved', id: Number(row!.id) };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  const existing = await db.first<KeyRow>(db.sql('idempotency_keys').where({ business_id: businessId, idempotency_key: key }));
  if (!existing) return { kind: 'in_flight' };
  if (existing.request_hash !== requestHash) return { kind: 'mismatch' };
  if (existing.state === 'done')
    return { kind: 'replay', status: Number(existing.response_status), body: openResponse(secretsKeys, Number(existing.id), existing.response_body) };
  if (new Date(toIsoMicros(existing.locked_at)).getTime() > now.getTime() - ABANDONED_AFTER_MS) return { kind: 'in_flight' };
  const taken = await db.run(
    db.sql('idempotency_keys').where({ id: existing.id, state: 'in_flight', locked_at: existing.locked_at }).update({ locked_at: nowText }),
  );
  return taken === 1 ? { kind: 'reserved', id: Number(existing.id) } : { kind: 'in_flight' };
}

export async function saveResponse(db: Executor, id: number, status: number, body: unknown, secretsKey: MasterKey): Promise<void> {
  await db.run(
    db
      .sql('idempotency_keys')
      .where({ id })
      .update({ state: 'done', response_status: status, response_body: sealResponse(secretsKey, id, body) }),
  );
}

/** Forgets a reservation whose request kept no answer: the key is free for that request again. */
export async function releaseKey(db: Executor, id: number): Promise<void> {
  await db.run(db.sql('idempotency_keys').where({ id, state: 'in_flight' }).delete());
}

export async function deleteExpiredKeys(db: Executor, now = new Date()): Promise<number> {
  return db.run(db.sql('idempotency_keys').where('expires_at', '<=', isoMicros(now)).delete());
}
