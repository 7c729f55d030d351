// Constraint errors look different on each database and driver; this is the one place that knows them.
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code === '23505') return true; // PostgreSQL unique_violation
  // better-sqlite3 says SQLITE_CONSTRAINT_UNIQUE (or _PRIMARYKEY); node-sqlite3 said SQLITE_CONSTRAINT.
  return typeof e.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT') && /UNIQUE constraint failed/.test(e.message ?? '');
}
