// Why a write was refused or failed, as the audit log records it: what its answer told the caller,
// the message, or each field's first error for a 422 (which names the field, as the caller saw it).

export function reasonOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { message, errors } = body as { message?: unknown; errors?: unknown };
  const fields =
    typeof errors === 'object' && errors !== null
      ? Object.entries(errors as Record<string, unknown>)
          .map(([field, messages]) => (Array.isArray(messages) && typeof messages[0] === 'string' ? `${field}: ${messages[0]}` : undefined))
          .filter((line): line is string => line !== undefined)
      : [];
  if (fields.length > 0) return fields.join(' ');
  return typeof message === 'string' ? message : undefined;
}
