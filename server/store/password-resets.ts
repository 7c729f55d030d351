// Password resets by e-mail (`migrations/0040_secret_checks.ts`): a one-time link for a user, found by the hash of its
// token, good until it expires or is used; asking again, or any new password, ends the ones before.
import { newId } from '../domain/ids.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';
import { sha256 } from './users.js';

export interface PasswordReset {
  id: string;
  userId: string;
  createdAt: string;
  expiresAt: string;
}

interface Row {
  _id: string;
  user_id: string;
  created_at: string | Date;
  expires_at: string | Date;
}

function toReset(row: Row): PasswordReset {
  return { id: row._id, userId: row.user_id, createdAt: toIsoMicros(row.created_at), expiresAt: toIsoMicros(row.expires_at) };
}

export async function insertPasswordReset(
  db: Executor,
  reset: { token: string; userId: string; expiresAt: Date; clientAddress: string | null },
): Promise<PasswordReset> {
  const id = newId();
  const createdAt = nowIso();
  await db.run(
    db.sql('password_resets').insert({
      _id: id,
      token_hash: sha256(reset.token),
      user_id: reset.userId,
      created_at: createdAt,
      expires_at: reset.expiresAt.toISOString(),
      client_address: reset.clientAddress?.slice(0, 64) ?? null,
    }),
  );
  return { id, userId: reset.userId, createdAt, expiresAt: toIsoMicros(reset.expiresAt) };
}

/** The reset behind a token while it can still be used. */
export async function findUsableReset(db: Executor, token: string, now: Date): Promise<PasswordReset | undefined> {
  const row = await db.first<Row>(
    db
      .sql('password_resets')
      .select('_id', 'user_id', 'created_at', 'expires_at')
      .where({ token_hash: sha256(token) })
      .whereNull('used_at')
      .where('expires_at', '>', now.toISOString()),
  );
  return row && toReset(row);
}

/** Marks the reset used: true for the one request that does it first, while it has not expired. */
export async function useReset(db: Executor, id: string, now: Date): Promise<boolean> {
  return (
    (await db.run(
      db.sql('password_resets').update({ used_at: now.toISOString() }).where({ _id: id }).whereNull('used_at').where('expires_at', '>', now.toISOString()),
    )) === 1
  );
}

/** Ends every reset of the user not used yet: a newer one was asked for, or the password changed. */
export async function endResetsOf(db: Executor, userId: string, now: Date): Promise<number> {
  return db.run(db.sql('password_resets').update({ used_at: now.toISOString() }).where({ user_id: userId }).whereNull('used_at'));
}

/** Deletes resets that expired before `before`. */
export async function deleteResetsExpiredBefore(db: Executor, before: Date): Promise<number> {
  return db.run(db.sql('password_resets').delete().where('expires_at', '<', before.toISOString()));
}
