// Submits of the activation form, by attempt id (the table of `migrations/0010_token_activation_attempts.ts`).
import type { Executor } from './executor.js';
import { nowIso } from './timestamps.js';

export type ActivationAttemptStatus = 'pending' | 'saved' | 'declined' | 'superseded';

export interface ActivationAttempt {
  attempt_id: string;
  business_id: number;
  token_id: string;
  status: ActivationAttemptStatus;
  failure_code: string | null;
  /** The acquirer's page (Stripe: its setup Checkout Session) a hosted attempt saves the card on. */
  provider_session: string | null;
}

const COLUMNS = ['attempt_id', 'business_id', 'token_id', 'status', 'failure_code', 'provider_session'];

/** Records a new attempt as pending; a unique violation means this attempt id was submitted before. */
export async function insertPendingActivation(db: Executor, attempt: { attempt_id: string; business_id: number; token_id: string }): Promise<void> {
  const now = nowIso();
  await db.run(db.sql('token_activation_attempts').insert({ ...attempt, status: 'pending', failure_code: null, created_at: now, updated_at: now }));
}

export async function findActivationAttempt(db: Executor, attemptId: string): Promise<ActivationAttempt | undefined> {
  const row = await db.first<ActivationAttempt>(db.sql('token_activation_attempts').select(COLUMNS).where({ attempt_id: attemptId }));
  return row ? { ...row, business_id: Number(row.business_id) } : undefined;
}

/** Settles a pending attempt with its outcome (and, for a decline, its precise reason). */
export async function settleActivation(
  db: Executor,
  attemptId: string,
  status: Exclude<ActivationAttemptStatus, 'pending'>,
  failureCode: string | null = null,
): Promise<void> {
  await db.run(
    db.sql('token_activation_attempts').where({ attempt_id: attemptId, status: 'pending' }).update({ status, failure_code: failureCode, updated_at: nowIso() }),
  );
}

export async function setActivationSession(db: Executor, attemptId: string, sessionId: string): Promise<void> {
  await db.run(
    db.sql('token_activation_attempts').where({ attempt_id: attemptId, status: 'pending' }).update({ provider_session: sessionId, updated_at: nowIso() }),
  );
}

export async function findActivationAttemptBySession(db: Executor, sessionId: string): Promise<ActivationAttempt | undefined> {
  const row = await db.first<ActivationAttempt>(db.sql('token_activation_attempts').select(COLUMNS).where({ provider_session: sessionId }));
  return row ? { ...row, business_id: Number(row.business_id) } : undefined;
}
