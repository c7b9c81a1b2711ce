import { z } from 'zod';
import { isEmailAddress, MAX_LOCAL_PART_OCTETS } from './email-address';
import { isRowId, ROW_ID_DIGITS_PATTERN, rowIdMessage, rowIdNumber } from './row-id';

/**
 * Field-level schemas shared by every contact input (v4 and v3). Each accepts what a
 * JSON body, a form or a multipart body can carry (integers may arrive as digit strings) and
 * normalises it: strings are trimmed, and an optional value sent empty or null becomes null,
 * which clears the stored value. Messages are written for the person filling in the form.
 */

const label = (field: string) => field.replaceAll('_', ' ');

/**
 * What the document states of text the API can store (validation.ts refuses a NUL character in any
 * field, before these schemas run): as JSON Schema patterns, so that a client validating by the
 * document refuses what the API would. (Unpaired surrogates are refused too, but a pattern for
 * them needs the `u` flag, which not every reader of the document applies.)
 */
const NUL_FREE = '^[^\\u0000]*$';
/** The same, holding at least one character that is not whitespace (what is left once trimmed). */
const NUL_FREE_NOT_BLANK = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

/** An optional text field: string or null, at most `max` characters; '' and null both mean "none". */
export function optionalText(field: string, max = 255) {
  return z
    .string({ error: `The ${label(field)} must be a string.` })
    .trim()
    .max(max, `The ${label(field)} must not be greater than ${max} characters.`)
    .meta({ pattern: NUL_FREE })
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
    .max(max, `The ${label(field)} must not be greater than ${max} characters.`)
    .meta({ pattern: NUL_FREE_NOT_BLANK });
}

/**
 * The local part's limit (isEmailAddress) as a pattern, for validators that take `format` as a
 * mere annotation: an `@` after at most MAX_LOCAL_PART_OCTETS characters, and none after it (a
 * domain holds none; a quoted local part may), or nothing at all. Exact for ASCII; a pattern
 * cannot count UTF-8 octets, so the description states them.
 */
const LOCAL_PART_WITHIN_LIMIT = `^(?:[\\s\\S]{0,${MAX_LOCAL_PART_OCTETS}}@[^@]*)?$`;

/**
 * An e-mail address (isEmailAddress: RFC 5322, international ones included), trimmed like the
 * other fields and in Unicode's composed form (NFC, as RFC 6532 §3.1 asks of addresses): `é`
 * typed as one character and as `e` with a combining accent are one address, and the uniqueness
 * of a member's contacts' addresses (lower(email)) would otherwise count them as two.
 */
export function optionalEmail(max = 254) {
  const message = 'The email must be a valid email address.';
  return z
    .string({ error: message })
    .trim()
    .overwrite((value) => value.normalize('NFC'))
    .max(max, message)
    .refine((value) => value === '' || isEmailAddress(value), message)
    .meta({
      // JSON Schema's name for RFC 6531 addresses (RFC 5321's, international characters allowed).
      format: 'idn-email',
      pattern: LOCAL_PART_WITHIN_LIMIT,
      description: `An e-mail address as RFC 5322 writes it (a quoted local part, a one-label domain and an address literal included), with the international characters RFC 6531 allows; at most ${max} characters, of which at most ${MAX_LOCAL_PART_OCTETS} octets (UTF-8) before the @ (RFC 5321). Stored in Unicode's composed form (NFC, RFC 6532 §3.1), so that an accented address typed two ways is one.`,
    })
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** A TCP port as a URL writes it: 0 to 65535, leading zeros allowed (the URL parser reads them so). */
const PORT = '0*(?:[0-5]?\\d{0,4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])';

/**
 * What the URL parser (WHATWG's, which z.url runs) requires of an http(s) URL, as a pattern, so
 * that the document states it: the scheme in any case and `://`; then a host that is not empty
 * (`http://` alone is no URL), after any `user:password@`: a bracketed IPv6 address, or characters
 * none of which the parser forbids in a host (nor `%`: a percent-encoded host is refused here,
 * though the parser may take one); then any port up to 65535, and the rest of the URL after a
 * `/`, `?` or `#` (a `\` is read as `/`). What no pattern says well (a numeric host's IPv4 ranges,
 * IDNA's rules for `xn--` labels) is left to `format: uri`.
 */
const HTTP_URL = `^[Hh][Tt][Tt][Pp][Ss]?://(?:[^/?#\\\\]*@)?(?:\\[[0-9A-Fa-f:.]+\\]|[^\\s/?#:@\\[\\]\\\\<>^|%]+)(?::${PORT})?(?:[/?#\\\\]|$)`;

/** An absolute http(s) URL (its scheme in any case, as URLs allow); a pattern, so that the document states it. */
export function optionalWebsite(max = 2048) {
  const message = 'The website must be a valid URL starting with http:// or https://.';
  const url = z
    .url({ protocol: /^https?$/, error: message })
    .max(max, message)
    .meta({
      pattern: HTTP_URL,
      description: `An absolute http:// or https:// URL with a host (a port, if any, up to 65535), at most ${max} characters.`,
    });
  return z
    .union([z.literal(''), url], { error: message })
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** The dates a `date` field holds: what PostgreSQL's `date` stores of four-digit ISO years (it has no year 0). */
export const MIN_DATE = '0001-01-01';
export const MAX_DATE = '9999-12-31';

/**
 * A real calendar date, YYYY-MM-DD, from MIN_DATE to MAX_DATE: 2024-02-30 is refused, and so is
 * 0000-01-01, which ISO 8601 allows but PostgreSQL cannot store (it failed the write: 500).
 */
export function optionalDate(field: string) {
  const message = `The ${label(field)} must be a real date from ${MIN_DATE} to ${MAX_DATE}, as YYYY-MM-DD.`;
  return z
    .union(
      [
        z.literal(''),
        // Years have four digits (the format): all but 0000 are PostgreSQL dates. A pattern, so
        // that the document states the rule too.
        z.iso
          .date({ error: message })
          .regex(/^(?!0000)/, message)
          .meta({ format: 'date', description: `A date from ${MIN_DATE} to ${MAX_DATE}.` }),
      ],
      { error: message },
    )
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** A row id (see row-id.ts); from forms it arrives as a digit string. */
export function optionalId(field: string) {
  const message = rowIdMessage(label(field));
  return z
    .union(
      [
        rowIdNumber(message),
        z
          .string({ error: message })
          .regex(/^\s*(\d{1,10})?\s*$/, message)
          .meta({ pattern: `^\\s*(?:${ROW_ID_DIGITS_PATTERN})?\\s*$` }),
      ],
      {
        error: message,
      },
    )
    .nullable()
    .transform((value, ctx) => {
      if (value === null) return null;
      if (typeof value === 'number') return value;
      const trimmed = value.trim();
      if (trimmed === '') return null;
      const number = Number(trimmed);
      if (!isRowId(number)) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return number;
    });
}
