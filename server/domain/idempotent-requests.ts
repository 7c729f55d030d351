// A request under an Idempotency-Key and what became of it: the HTTP adapter asks, the idempotency
// use case answers (server/usecases/platform/idempotency.ts), both in these terms.

export interface IdempotentRequest {
  businessId: number;
  key: string;
  method: string;
  path: string;
  body: unknown;
  /** The work keeps its answers itself, through `ctx.keep`, in the transactions of its phases. */
  atomicPhases?: boolean;
}

/** A reply as it is kept for a key and replayed: status, body, headers. */
export interface RecordedReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type IdempotentOutcome<R extends RecordedReply = RecordedReply> =
  | { kind: 'ran'; reply: R }
  /** The reply kept for an earlier request with this key. */
  | { kind: 'replay'; reply: R }
  /** The key was used with another request. */
  | { kind: 'mismatch' }
  /** The first request with the key is still running. */
  | { kind: 'in_flight' };
