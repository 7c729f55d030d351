// Users, their memberships of businesses (one role each), their two-factor state and recovery codes
// (`migrations/0033_users_and_sessions.ts`). The e-mail is matched by its lower-case key; secrets are kept as hashes or sealed.
import { createHash } from 'node:crypto';
import { newId } from '../domain/ids.js';
import type { Role } from '../domain/permissions.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface User {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string | null;
  /** The sealed TOTP secret (pending until `totpEnabledAt`). */
  totpSecret: string | null;
  totpEnabledAt: string | null;
  totpLastStep: number | null;
  createdAt: string;
}

interface UserRow {
  _id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  totp_secret: string | null;
  totp_enabled_at: string | Date | null;
  totp_last_step: number | string | null;
  created_at: string | Date;
}

function toUser(row: UserRow): User {
  return {
    id: row._id,
    email: row.email,
    name: row.name,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    totpEnabledAt: row.totp_enabled_at ? toIsoMicros(row.totp_enabled_at) : null,
    totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
    createdAt: toIsoMicros(row.created_at),
  };
}

export async function findUserByEmail(db: Executor, email: string): Promise<User | undefined> {
  const row = await db.first<UserRow>(
    db
      .sql('users')
      .select('*')
      .where({ email_key: emailKey(email) }),
  );
  return row && toUser(row);
}

export async function findUser(db: Executor, id: string): Promise<User | undefined> {
  const row = await db.first<UserRow>(db.sql('users').select('*').where({ _id: id }));
  return row && toUser(row);
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('users').count({ count: '*' }));
  return Number(row?.count ?? 0);
}

/** The user with this e-mail, made (without a password) if there is none. */
export async function findOrInsertUser(db: Executor, email: string): Promise<User> {
  const now = nowIso();
  await db.run(
    db
      .sql('users')
      .insert({ _id: newId(), email: email.trim(), email_key: emailKey(email), created_at: now, updated_at: now })
      .onConflict('email_key')
      .ignore(),
  );
  return (await findUserByEmail(db, email))!;
}

export async function updateUser(
  db: Executor,
  id: string,
  fields: Partial<{ name: string; passwordHash: string; totpSecret: string | null; totpEnabledAt: string | null; totpLastStep: number | null }>,
): Promise<void> {
  const row: Record<string, unknown> = { updated_at: nowIso() };
  if (fields.name !== undefined) row.name = fields.name;
  if (fields.passwordHash !== undefined) row.password_hash = fields.passwordHash;
  if (fields.totpSecret !== undefined) row.totp_secret = fields.totpSecret;
  if (fields.totpEnabledAt !== undefined) row.totp_enabled_at = fields.totpEnabledAt;
  if (fields.totpLastStep !== undefined) row.totp_last_step = fields.totpLastStep;
  await db.run(db.sql('users').update(row).where({ _id: id }));
}

/**
 * Records `step` as the last TOTP time step used, only if it is later than the one recorded: of two
 * requests with the same code, one wins.
 */
export async function claimTotpStep(db: Executor, userId: string, step: number): Promise<boolean> {
  const changed = await db.run(
    db
      .sql('users')
      .update({ totp_last_step: step })
      .where({ _id: userId })
      .andWhere((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step)),
  );
  return changed === 1;
}

export interface Membership {
  businessId: number;
  businessName: string;
  role: Role;
  requireTwoFactor: boolean;
}

export async function membershipsOf(db: Executor, userId: string): Promise<Membership[]> {
  const rows = await db.all<{ business_id: number; name: string; role: Role; require_two_factor: boolean | number }>(
    db
      .sql('memberships')
      .join('businesses', 'businesses.id', 'memberships.business_id')
      .select('memberships.business_id', 'businesses.name', 'memberships.role', 'businesses.require_two_factor')
      .where('memberships.user_id', userId)
      .orderBy('memberships.business_id'),
  );
  return rows.map((row) => ({
    businessId: Number(row.business_id),
    businessName: row.name,
    role: row.role,
    requireTwoFactor: Boolean(row.require_two_factor),
  }));
}

export async function membershipIn(db: Executor, userId: string, businessId: number): Promise<Membership | undefined> {
  return (await membershipsOf(db, userId)).find((membership) => membership.businessId === businessId);
}

export async function upsertMembership(db: Executor, businessId: number, userId: string, role: Role): Promise<void> {
  await db.run(
    db
      .sql('memberships')
      .insert({ business_id: businessId, user_id: userId, role, created_at: nowIso() })
      .onConflict(['business_id', 'user_id'])
      .merge(['role']),
  );
}

/** Makes the user a member with `role`; a membership there already is left as it is (the caller checked under the business's lock). */
export async function insertMembership(db: Executor, businessId: number, userId: string, role: Role): Promise<void> {
  await db.run(
    db.sql('memberships').insert({ business_id: businessId, user_id: userId, role, created_at: nowIso() }).onConflict(['business_id', 'user_id']).ignore(),
  );
}

export async function setRole(db: Executor, businessId: number, userId: string, role: Role): Promise<number> {
  return db.run(db.sql('memberships').update({ role }).where({ business_id: businessId, user_id: userId }));
}

export async function deleteMembership(db: Executor, businessId: number, userId: string): Promise<number> {
  return db.run(db.sql('memberships').delete().where({ business_id: businessId, user_id: userId }));
}

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  twoFactor: boolean;
  joinedAt: string;
}

export async function listMembers(db: Executor, businessId: number): Promise<Member[]> {
  const rows = await db.all<{ _id: string; email: string; name: string | null; role: Role; totp_enabled_at: unknown; created_at: string | Date }>(
    db
      .sql('memberships')
      .join('users', 'users._id', 'memberships.user_id')
      .select('users._id', 'users.email', 'users.name', 'memberships.role', 'users.totp_enabled_at', 'memberships.created_at')
      .where('memberships.business_id', businessId)
      .orderBy('memberships.created_at')
      .limit(1000),
  );
  return rows.map((row) => ({
    userId: row._id,
    email: row.email,
    name: row.name,
    role: row.role,
    twoFactor: row.totp_enabled_at !== null,
    joinedAt: toIsoMicros(row.created_at),
  }));
}

/** Owners of the business, read under the business's lock by the caller (see lockBusiness). */
export async function countOwners(db: Executor, businessId: number): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('memberships').count({ count: '*' }).where({ business_id: businessId, role: 'owner' }));
  return Number(row?.count ?? 0);
}

export async function setRequireTwoFactor(db: Executor, businessId: number, required: boolean): Promise<void> {
  await db.run(db.sql('businesses').update({ require_two_factor: required }).where({ id: businessId }));
}

export async function requiresTwoFactor(db: Executor, businessId: number): Promise<boolean> {
  const row = await db.first<{ require_two_factor: boolean | number }>(db.sql('businesses').select('require_two_factor').where({ id: businessId }));
  return Boolean(row?.require_two_factor);
}

export async function replaceRecoveryCodes(db: Executor, userId: string, codes: readonly string[]): Promise<void> {
  await db.run(db.sql('recovery_codes').delete().where({ user_id: userId }));
  if (codes.length > 0) await db.run(db.sql('recovery_codes').insert(codes.map((code) => ({ user_id: userId, code_hash: sha256(code) }))));
}

/** Uses up a recovery code: true once, for the first request that presents it. */
export async function useRecoveryCode(db: Executor, userId: string, code: string): Promise<boolean> {
  return (
    (await db.run(
      db
        .sql('recovery_codes')
        .update({ used_at: nowIso() })
        .where({ user_id: userId, code_hash: sha256(code) })
        .whereNull('used_at'),
    )) === 1
  );
}

export async function countUnusedRecoveryCodes(db: Executor, userId: string): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('recovery_codes').count({ count: '*' }).where({ user_id: userId }).whereNull('used_at'));
  return Number(row?.count ?? 0);
}
