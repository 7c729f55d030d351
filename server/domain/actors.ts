// Who did something, as the audit log records it: an API key, a signed-in member, someone who failed
// to sign in (with the e-mail they gave, if any), or the operator at the command line.

export type Actor =
  { kind: 'api_key'; id: string; name: string } | { kind: 'user'; id: string; email: string } | { kind: 'anonymous'; email?: string } | { kind: 'operator' };

export function actorId(actor: Actor): string | null {
  return actor.kind === 'api_key' || actor.kind === 'user' ? actor.id : null;
}

export function actorLabel(actor: Actor): string | null {
  switch (actor.kind) {
    case 'api_key':
      return actor.name;
    case 'user':
      return actor.email;
    case 'anonymous':
      return actor.email ?? null;
    case 'operator':
      return null;
  }
}

/** A member signed in through a session: the session, who they are, and the business they act in now. */
export interface SignedIn {
  sessionId: string;
  userId: string;
  email: string;
  businessId: number;
}

/**
 * The key behind a request, where a key is: what a key it makes inherits (the person it is bound to,
 * the two-factor rule) and is bounded by (its expiry).
 */
export interface KeyHolder {
  /** The key's row, for its last use and as a child's parent. */
  rowId: number;
  /** When the key stops working (ms since the epoch), if it expires. */
  expiresAtMs?: number;
  /** The member it is bound to (its maker, or its parent's); null for the operator's keys. */
  madeByUserId: string | null;
  /** Whether it holds nothing while its maker lacks two-factor, whatever the business requires now. */
  twoFactorRule: boolean;
}
