// Members' sessions (`migrations/0033_users_and_sessions.ts`): found by the SHA-256 of the cookie's value, so the table holds
// nothing a thief could send back. A session ends when it is idle too long, at its absolute end, at
// sign-out, or when it is deleted with the others of its user (a password change, a role change).
import { newId } from '../domain/ids.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';
import { sha256 } from './users.js';

export interface UserSession {
  id: string;
  userId: string;
  businessId: number;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  clientAddress: string | null;
  userAgent: string | null;
}

interface Row {
  _id: string;
  user_id: string;
  business_id: number;
  created_at: string | Date;
  last_seen_at: string | Date;
  expires_at: string | Date;
  client_address: string | null;
  user_agent: string | null;
}

function toSession(row: Row): UserSession {
  return {
    id: row._id,
    userId: row.user_id,
    businessId: Number(row.business_id),
    createdAt: toIsoMicros(row.created_at),
    lastSeenAt: toIsoMicros(row.last_seen_at),
    expiresAt: toIsoMicros(row.expires_at),
    clientAddress: row.client_address,
    userAgent: row.user_agent,
  };
}

export async function insertSession(
  db: Executor,
  session: { token: string; userId: string; businessId: number; expiresAt: Date; clientAddress: string | null; userAgent: string | null },
): Promise<string> {
  const id = newId();
  const now = nowIso();
  await db.run(
    db.sql('user_sessions').insert({
      _id: id,
      token_hash: sha256(session.token),
      user_id: session.userId,
      business_id: session.businessId,
      created_at: now,
      last_seen_at: now,
      expires_at: session.expiresAt.toISOString(),
      client_address: session.clientAddress,
      user_agent: session.userAgent?.slice(0, 512) ?? null,
    }),
  );
  return id;
}

export async function findSessionByToken(db: Executor, token: string): Promise<UserSession | undefined> {
  const row = await db.first<Row>(
    db
      .sql('user_sessions')
      .select('*')
      .where({ token_hash: sha256(token) }),
  );
  return row && toSession(row);
}

export async function touchSession(db: Executor, id: string, at: Date): Promise<void> {
  await db.run(db.sql('user_sessions').update({ last_seen_at: at.toISOString() }).where({ _id: id }));
}

export async function setSessionBusiness(db: Executor, id: string, businessId: number): Promise<void> {
  await db.run(db.sql('user_sessions').update({ business_id: businessId }).where({ _id: id }));
}

export async function listSessions(db: Executor, userId: string): Promise<UserSession[]> {
  const rows = await db.all<Row>(db.sql('user_sessions').select('*').where({ user_id: userId }).orderBy('created_at', 'desc').limit(100));
  return rows.map(toSession);
}

export async function deleteSession(db: Executor, id: string, userId?: string): Promise<number> {
  return db.run(
    db
      .sql('user_sessions')
      .delete()
      .where({ _id: id, ...(userId ? { user_id: userId } : {}) }),
  );
}

/** Ends every session of the user but `keep` (when given). */
export async function deleteSessionsOf(db: Executor, userId: string, keep?: string): Promise<number> {
  const query = db.sql('user_sessions').delete().where({ user_id: userId });
  return db.run(keep ? query.whereNot({ _id: keep }) : query);
}

export async function deleteExpiredSessions(db: Executor, now: Date, idleMs: number): Promise<number> {
  return db.run(
    db
      .sql('user_sessions')
      .delete()
      .where('expires_at', '<', now.toISOString())
      .orWhere('last_seen_at', '<', new Date(now.getTime() - idleMs).toISOString()),
  );
}

/** Gives the session a new secret (a new cookie value), so the one before it no longer signs anyone in. */
export async function rotateSessionToken(db: Executor, id: string, token: string): Promise<void> {
  await db.run(
    db
      .sql('user_sessions')
      .update({ token_hash: sha256(token) })
      .where({ _id: id }),
  );
}
