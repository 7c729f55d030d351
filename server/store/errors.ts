// Constraint errors look different on each database; this is the one place that knows both.
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; message?: string } | null;
  if (!e) return false;
  if (e.code === '23505') return true; // PostgreSQL unique_violation
  return e.code === 'SQLITE_CONSTRAINT' && /UNIQUE constraint failed/.test(e.message ?? '');
}
