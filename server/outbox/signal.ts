/** Tells the outbox worker that a commit just enqueued something, so it need not wait for its next poll. */
export interface OutboxSignal {
  nudge(): void;
}
