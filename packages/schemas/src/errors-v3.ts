import { z } from 'zod';
import type { FieldErrors } from './validation';

/** v3 error bodies, Laravel's: {"message"} and, for validation (422), {"message", "errors"}. */
export const messageV3 = z.object({ message: z.string() });

export const validationErrorV3 = z.object({
  message: z.string().describe('The first message, plus "(and N more errors)" when there are others.'),
  errors: z.record(z.string(), z.array(z.string())).describe('Per-field messages.'),
});

export type MessageV3 = z.output<typeof messageV3>;
export type ValidationErrorV3 = z.output<typeof validationErrorV3>;

/** Laravel's summary: the first message, then " (and 1 more error)" / " (and N more errors)". */
export function summarizeFieldErrors(fields: FieldErrors): string {
  const messages = Object.values(fields).flat();
  const [first = 'The given data was invalid.', ...others] = messages;
  if (others.length === 0) return first;
  return `${first} (and ${others.length} more ${others.length === 1 ? 'error' : 'errors'})`;
}
