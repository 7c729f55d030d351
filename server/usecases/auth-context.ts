// What the sign-in use cases are given and told, apart from them, so that the use cases' context and
// two-factor sign-in can name it without importing the sign-in workflow (auth.ts) itself.
import type { SessionSettings } from '../domain/sessions.js';

/** Counts failed sign-ins per account and per client address (server/ratelimit/sign-in.ts). */
export interface SignInThrottle {
  /** Seconds until another attempt is allowed, or undefined when one is. */
  blocked(email: string, address: string, now: number): Promise<number | undefined>;
  failed(email: string, address: string, now: number): Promise<void>;
}

export interface AuthContext {
  sessions: SessionSettings;
  throttle: SignInThrottle;
}

/** Where a request comes from, for the audit log and the sign-in limits. */
export interface RequestMeta {
  address: string;
  userAgent: string | null;
  requestId: string | null;
}
