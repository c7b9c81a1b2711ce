import { z } from 'zod';

/**
 * Field-level schemas shared by every contact input (v4 and v3). Each accepts what a
 * JSON body, a form or a multipart body can carry (integers may arrive as digit strings) and
 * normalises it: strings are trimmed, and an optional value sent empty or null becomes null,
 * which clears the stored value. Messages are written for the person filling in the form.
 */

const label = (field: string) => field.replaceAll('_', ' ');

/** An optional text field: string or null, at most `max` characters; '' and null both mean "none". */
export function optionalText(field: string, max = 255) {
  return z
    .string({ error: `The ${label(field)} must be a string.` })
    .trim()
    .max(max, `The ${label(field)} must not be greater than ${max} characters.`)
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** A required text field (the contact's name): never empty once trimmed. */
export function requiredText(field: string, max = 255) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? `The ${label(field)} field is required.`
          : `The ${label(field)} must be a string.`,
    })
    .trim()
    .min(1, `The ${label(field)} field is required.`)
    .max(max, `The ${label(field)} must not be greater than ${max} characters.`);
}

export function optionalEmail(max = 254) {
  const message = 'The email must be a valid email address.';
  return z
    .union([z.literal(''), z.email(message).max(max, message)], { error: message })
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** An absolute http(s) URL. */
export function optionalWebsite(max = 2048) {
  const message = 'The website must be a valid URL starting with http:// or https://.';
  return z
    .union([z.literal(''), z.url({ protocol: /^https?$/, error: message }).max(max, message)], { error: message })
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** A real calendar date, YYYY-MM-DD (2024-02-30 is refused). */
export function optionalDate(field: string) {
  const message = `The ${label(field)} must be a valid date in the format YYYY-MM-DD.`;
  return z
    .union([z.literal(''), z.iso.date({ error: message })], { error: message })
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** A positive integer id; from forms it arrives as a digit string. */
export function optionalId(field: string) {
  const message = `The ${label(field)} must be an integer.`;
  return z
    .union(
      [
        z.int({ error: message }).positive(message).max(2_147_483_647, message),
        z.string({ error: message }).regex(/^\s*(\d{1,10})?\s*$/, message),
      ],
      { error: message },
    )
    .nullable()
    .transform((value, ctx) => {
      if (value === null) return null;
      if (typeof value === 'number') return value;
      const trimmed = value.trim();
      if (trimmed === '') return null;
      const number = Number(trimmed);
      if (number < 1 || number > 2_147_483_647) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return number;
    });
}
