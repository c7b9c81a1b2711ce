import { isRowId, MAX_ROW_ID } from '@contacts/db';
import { isEmailAddress } from '@contacts/schemas';
import { z } from 'zod';
import { requireAcceptablePassword } from './password-policy';

/** A problem with what a member or operator entered, with a message meant for them. */
export class InputError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Anything that is not a string reads as the empty string, so that it gets the "required" message. */
const text = z.unknown().transform((value) => (typeof value === 'string' ? value : ''));

/** PostgreSQL text cannot hold NUL: refused here as bad input rather than failing the insert. */
const noNul = (label: string) =>
  z.string().refine((value) => !value.includes('\u0000'), `${label} must not contain NUL characters.`);

// An address as a contact's is written (isEmailAddress: RFC 5322, international ones included),
// with a dot in its domain: a member's address is one mail can reach across the internet.
const DOTTED_DOMAIN = /@[^@]+\.[^@]+$/;
const INVALID_EMAIL = 'Enter a valid e-mail address.';

function parse<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InputError(result.error.issues[0]?.message ?? 'This value is not valid.', field);
}

export function requireEmail(value: unknown, field = 'email'): string {
  return parse(
    text
      .transform((entered) => entered.trim().normalize('NFC'))
      .pipe(
        z
          .string()
          .max(254, INVALID_EMAIL)
          .refine((address) => isEmailAddress(address) && DOTTED_DOMAIN.test(address), INVALID_EMAIL),
      ),
    value,
    field,
  );
}

/**
 * [security] Characters that change how the text around them is laid out (U+202E RIGHT-TO-LEFT
 * OVERRIDE and the rest of Unicode's Bidi_Control), control characters, line and paragraph
 * separators, interlinear annotation marks and noncharacters: in a name shown to another member
 * (an application's on a consent page) they can reverse or break the sentence it sits in, or hide
 * what follows.
 */
const LAYOUT_CONTROLS = /[\p{Bidi_Control}\p{Cc}\p{Zl}\p{Zp}\uFFF9-\uFFFB\p{Noncharacter_Code_Point}]/u;
/**
 * A character a reader sees: a letter, digit, punctuation mark or symbol, but none that renders
 * as nothing (the default-ignorable ones, such as U+200B and the Hangul fillers, and the blank
 * symbols U+2800 BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD). Combining
 * marks alone are not one.
 */
const VISIBLE = /[[\p{L}\p{N}\p{P}\p{S}]--[\p{Default_Ignorable_Code_Point}\u2800\u{1D159}]]/v;

/** A name shown on pages (of an application, a token, a member, a group): one line of visible text. */
export function requireText(value: unknown, field: string, label: string, max = 255): string {
  const schema = text
    .transform((entered) => entered.trim())
    .pipe(z.string().min(1, `${label} is required.`).max(max, `${label} must be at most ${max} characters.`))
    .pipe(noNul(label))
    .refine(
      (entered) => !LAYOUT_CONTROLS.test(entered),
      `${label} must not contain control or text-direction characters (such as U+202E).`,
    )
    .refine((entered) => VISIBLE.test(entered), `${label} must contain a visible character.`);
  return parse(schema, value, field);
}

/** The password rule lives in password-policy.ts (pages and CLI alike). */
export function requirePassword(value: unknown, field = 'password'): string {
  return requireAcceptablePassword(value, field);
}

export function requirePositiveInteger(value: unknown, field: string, label: string): number {
  const schema = z
    .union([z.number(), z.string().regex(/^\d+$/).transform(Number)])
    .catch(Number.NaN)
    .refine(isRowId, `${label} must be a positive integer of at most ${MAX_ROW_ID}.`);
  return parse(schema, value, field);
}
