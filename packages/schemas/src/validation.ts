import type { z } from 'zod';

/** Per-field messages, the `fields` member of a validation error. */
export type FieldErrors = Record<string, string[]>;

export type Validated<T> = { ok: true; value: T } | { ok: false; fields: FieldErrors };

/** Runs a schema and turns its issues into per-field messages (problems with the whole input go under "_"). */
export function validate<S extends z.ZodType>(schema: S, input: unknown): Validated<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, fields: fieldErrorsOf(result.error) };
}

export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? String(issue.path[0]) : '_';
    const messages = fields[key] ?? [];
    if (!messages.includes(issue.message)) messages.push(issue.message);
    fields[key] = messages;
  }
  return fields;
}
