// One-time links that let someone set their password (`migrations/0033_users_and_sessions.ts`): the first owner's, one the
// operator made with create-user, or an invitation to a business with a role. Found by the hash of the
// link's token; used once.
import { newId } from '../domain/ids.js';
import type { Role } from '../domain/permissions.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';
import { emailKey, sha256 } from './users.js';

export type AccountLinkPurpose = 'set_password' | 'invitation';

export interface AccountLink {
  id: string;
  purpose: AccountLinkPurpose;
  businessId: number;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
}

interface Row {
  _id: string;
  purpose: AccountLinkPurpose;
  business_id: number;
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: string | Date;
  expires_at: string | Date;
  used_at: string | Date | null;
  revoked_at: string | Date | null;
}

function toLink(row: Row): AccountLink {
  return {
    id: row._id,
    purpose: row.purpose,
    businessId: Number(row.business_id),
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by,
    createdAt: toIsoMicros(row.created_at),
    expiresAt: toIsoMicros(row.expires_at),
    usedAt: row.used_at ? toIsoMicros(row.used_at) : null,
    revokedAt: row.revoked_at ? toIsoMicros(row.revoked_at) : null,
  };
}

export async function insertAccountLink(
  db: Executor,
  link: { token: string; purpose: AccountLinkPurpose; businessId: number; email: string; role: Role; invitedBy: string | null; expiresAt: Date },
): Promise<AccountLink> {
  const id = newId();
  await db.run(
    db.sql('account_links').insert({
      _id: id,
      token_hash: sha256(link.token),
      purpose: link.purpose,
      business_id: link.businessId,
      email: link.email.trim(),
      email_key: emailKey(link.email),
      role: link.role,
      invited_by: link.invitedBy,
      created_at: nowIso(),
      expires_at: link.expiresAt.toISOString(),
    }),
  );
  return (await findAccountLink(db, id))!;
}

export async function findAccountLink(db: Executor, id: string, businessId?: number): Promise<AccountLink | undefined> {
  const row = await db.first<Row>(
    db
      .sql('account_links')
      .select('*')
      .where({ _id: id, ...(businessId === undefined ? {} : { business_id: businessId }) }),
  );
  return row && toLink(row);
}

/** The link behind a token while it can still be used. */
export async function findUsableLink(db: Executor, token: string, now: Date): Promise<AccountLink | undefined> {
  const row = await db.first<Row>(
    db
      .sql('account_links')
      .select('*')
      .where({ token_hash: sha256(token) })
      .whereNull('used_at')
      .whereNull('revoked_at')
      .where('expires_at', '>', now.toISOString()),
  );
  return row && toLink(row);
}

/** Marks the link used: true for the one request that does it first. */
export async function useLink(db: Executor, id: string): Promise<boolean> {
  return (await db.run(db.sql('account_links').update({ used_at: nowIso() }).where({ _id: id }).whereNull('used_at').whereNull('revoked_at'))) === 1;
}

export async function revokeLink(db: Executor, id: string, businessId: number): Promise<boolean> {
  return (
    (await db.run(
      db
        .sql('account_links')
        .update({ revoked_at: nowIso() })
        .where({ _id: id, business_id: businessId, purpose: 'invitation' })
        .whereNull('used_at')
        .whereNull('revoked_at'),
    )) === 1
  );
}

/** The business's invitations not yet used, revoked or expired, newest first. */
export async function listOpenInvitations(db: Executor, businessId: number, now: Date): Promise<AccountLink[]> {
  const rows = await db.all<Row>(
    db
      .sql('account_links')
      .select('*')
      .where({ business_id: businessId, purpose: 'invitation' })
      .whereNull('used_at')
      .whereNull('revoked_at')
      .where('expires_at', '>', now.toISOString())
      .orderBy('created_at', 'desc')
      .limit(1000),
  );
  return rows.map(toLink);
}
