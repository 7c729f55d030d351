// Both databases hand back timestamps in their own shape; the API always shows
// `YYYY-MM-DDTHH:MM:SS.ffffffZ`. SQLite returns what we stored (already that shape); PostgreSQL
// returns `YYYY-MM-DD HH:MM:SS[.ffffff]+00` because the session time zone is UTC.
import { isoMicros } from '../domain/time.js';

const PG_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|\+00(?::?00)?)$/;

export function toIsoMicros(value: string | Date): string {
  if (value instanceof Date) return isoMicros(value);
  const match = PG_TIMESTAMP.exec(value);
  if (!match) return isoMicros(new Date(value));
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(6, '0')}Z`;
}

export function nowIso(): string {
  return isoMicros(new Date());
}
