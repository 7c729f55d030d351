// The 429 the API answers once a caller is over its limit.
import { HttpError } from './errors.js';

export type { RateLimiter, RateLimitResult, RateLimitWindow } from '../rate-limiter.js';

export class TooManyRequestsError extends HttpError {
  constructor(retryAfter: number) {
    super(429, 'Too Many Attempts.', { 'Retry-After': String(retryAfter) });
  }
}
