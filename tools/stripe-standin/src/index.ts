// What a test of the service uses: start a stand-in, point the Stripe SDK at it, read what it saw.
export { startStripeStandin, type RecordedRequest, type StripeStandin, type StripeStandinOptions } from './server.js';
export type { Delivery, StandinEvent, StripeEventRecord, Violation } from './events.js';
export type { FeeRule, ForwardTarget } from './state.js';
