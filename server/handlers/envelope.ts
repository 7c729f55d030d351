import { metaTimestampNow } from '../domain/time.js';

export interface Envelope<T> {
  success: true;
  data: T;
  errors: null;
  meta: { timestamp: string; timezone: 'UTC' };
}

export function ok<T>(data: T): Envelope<T> {
  return { success: true, data, errors: null, meta: { timestamp: metaTimestampNow(), timezone: 'UTC' } };
}
