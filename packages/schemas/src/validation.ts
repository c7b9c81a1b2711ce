import type { z } from 'zod';

/** Per-field messages, the `fields` member of a validation error. */
export type FieldErrors = Record<string, string[]>;

export type Validated<T> = { ok: true; value: T } | { ok: false; fields: FieldErrors };

/**
 * Runs a schema and turns its issues into per-field messages (problems with the whole input go
 * under "_"). Every string of the input is also refused when it holds a NUL character, whatever
 * the schema: PostgreSQL text cannot store one, and would fail the statement instead.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): Validated<z.output<S>> {
  const nul = fieldsWithNul(input);
  const result = schema.safeParse(input);
  if (result.success && nul === undefined) return { ok: true, value: result.data };
  const fields = result.success ? {} : fieldErrorsOf(result.error);
  for (const [key, messages] of Object.entries(nul ?? {})) fields[key] = [...(fields[key] ?? []), ...messages];
  return { ok: false, fields };
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

const hasNul = (value: unknown) => typeof value === 'string' && value.includes('\u0000');

/** The fields (of a flat input: a body or a query) with a string, or a list of strings, holding NUL. */
function fieldsWithNul(input: unknown): FieldErrors | undefined {
  if (hasNul(input)) return { _: ['The input must not contain NUL characters.'] };
  if (input === null || typeof input !== 'object') return undefined;
  const fields: FieldErrors = {};
  for (const [key, value] of Object.entries(input)) {
    if (Array.isArray(value) ? value.some(hasNul) : hasNul(value)) {
      fields[key] = [`The ${key.replaceAll('_', ' ')} must not contain NUL characters.`];
    }
  }
  return Object.keys(fields).length > 0 ? fields : undefined;
}
