import type { z } from 'zod';

/** Per-field messages, the `fields` member of a validation error. */
export type FieldErrors = Record<string, string[]>;

export type Validated<T> = { ok: true; value: T } | { ok: false; fields: FieldErrors };

/**
 * Runs a schema and turns its issues into per-field messages (problems with the whole input go
 * under "_"). Every string of the input is also refused when it is text PostgreSQL cannot store
 * as sent, whatever the schema (see textProblem).
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): Validated<z.output<S>> {
  const unstorable = fieldsWithUnstorableText(input);
  const result = schema.safeParse(input);
  if (result.success && unstorable === undefined) return { ok: true, value: result.data };
  const fields = result.success ? {} : fieldErrorsOf(result.error);
  for (const [key, messages] of Object.entries(unstorable ?? {})) fields[key] = [...(fields[key] ?? []), ...messages];
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

/** With the `u` flag a surrogate pair is one character, so this finds only unpaired halves. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why a value is text PostgreSQL cannot store as sent: a NUL character (text cannot hold one; the
 * statement would fail), or a lone surrogate, which only a JSON escape such as "\ud800" can carry
 * (the API reads bodies as strict UTF-8) and which is no Unicode text: it would be stored as U+FFFD.
 */
function textProblem(value: unknown, label: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.includes('\u0000')) return `The ${label} must not contain NUL characters.`;
  if (LONE_SURROGATE.test(value)) return `The ${label} must be valid Unicode text (it holds a lone surrogate).`;
  return undefined;
}

/** Whether PostgreSQL can store `value` as it is (textProblem finds nothing). */
export function isStorableText(value: string): boolean {
  return textProblem(value, 'text') === undefined;
}

/** The fields (of a flat input: a body or a query) with a string, or a list of strings, PostgreSQL cannot store. */
function fieldsWithUnstorableText(input: unknown): FieldErrors | undefined {
  const whole = textProblem(input, 'input');
  if (whole) return { _: [whole] };
  if (input === null || typeof input !== 'object') return undefined;
  const fields: FieldErrors = {};
  for (const [key, value] of Object.entries(input)) {
    const label = key.replaceAll('_', ' ');
    const problem = Array.isArray(value)
      ? value.map((item) => textProblem(item, label)).find((found) => found !== undefined)
      : textProblem(value, label);
    if (problem) fields[key] = [problem];
  }
  return Object.keys(fields).length > 0 ? fields : undefined;
}
