// The clients (an address, an IPv6 /64) each member has signed in from (`migrations/0040_secret_checks.ts`), and when
// last: a sign-in from one of them passes the per-account ceiling on failed attempts.
import type { Executor } from './executor.js';

/** How long a client the member signed in from stays known. */
export const KNOWN_CLIENT_DAYS = 90;

/** Notes a completed sign-in of the user from `client`, in the transaction that makes the session. */
export async function noteSignInFrom(db: Executor, userId: string, client: string, at: Date): Promise<void> {
  const when = at.toISOString();
  await db.run(
    db
      .sql('sign_in_addresses')
      .insert({ user_id: userId, client: client.slice(0, 64), first_signed_in_at: when, last_signed_in_at: when })
      .onConflict(['user_id', 'client'])
      .merge(['last_signed_in_at']),
  );
}

/** Whether the user signed in from `client` at `since` or later. */
export async function hasSignedInFrom(db: Executor, userId: string, client: string, since: Date): Promise<boolean> {
  const row = await db.first(
    db
      .sql('sign_in_addresses')
      .select('user_id')
      .where({ user_id: userId, client: client.slice(0, 64) })
      .where('last_signed_in_at', '>=', since.toISOString()),
  );
  return row !== undefined;
}

/** Forgets the clients last seen before `before`. */
export async function forgetSignInAddressesBefore(db: Executor, before: Date): Promise<number> {
  return db.run(db.sql('sign_in_addresses').delete().where('last_signed_in_at', '<', before.toISOString()));
}
