// The API's 422 answers (Laravel's shape: `errors` maps each field to its messages) shown on the form's
// fields; a message for a field the form does not show goes in the form's general message.
export interface FieldErrors {
  fields: Record<string, string>;
  general: string | undefined;
}

export function fieldErrors(error: unknown, shownFields: readonly string[]): FieldErrors {
  const body = (error ?? {}) as { message?: unknown; errors?: unknown };
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  if (typeof body.errors === 'object' && body.errors !== null) {
    for (const [field, messages] of Object.entries(body.errors as Record<string, unknown>)) {
      const text = Array.isArray(messages) ? messages.map(String).join(' ') : String(messages);
      if (shownFields.includes(field)) fields[field] = text;
      else elsewhere.push(text);
    }
  }
  const message = typeof body.message === 'string' ? body.message : undefined;
  const general = elsewhere.length > 0 ? elsewhere.join(' ') : Object.keys(fields).length === 0 ? message : undefined;
  return { fields, general };
}

/**
 * Whether the API refused a request as invalid (a 422, whose body maps fields to messages): asking
 * again gets the same answer, so a query shows it at once rather than after its retries.
 */
export function isValidationRefusal(error: unknown): boolean {
  const errors = (error as { errors?: unknown } | null | undefined)?.errors;
  return typeof errors === 'object' && errors !== null && !Array.isArray(errors);
}

/** What a refused action says in a toast: the API's message, or a plain one. */
export function refusalMessage(error: unknown): string {
  return fieldErrors(error, []).general ?? 'The service refused this.';
}
