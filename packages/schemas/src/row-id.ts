import { z } from 'zod';

/**
 * The range of our tables' ids (PostgreSQL `integer`), for every id the API reads: in paths,
 * queries and bodies. A larger one names no row, and sent to PostgreSQL it would fail the whole
 * query ("value out of range for type integer"), a 500, instead of the 422 or 404 it deserves.
 * @contacts/db re-exports these for the code that reads rows by id.
 */
export const MAX_ROW_ID = 2_147_483_647;

/**
 * A regular expression (source, no anchors) for the decimal numbers from 1 to `max`, without leading
 * zeros: fewer digits than `max` has, or as many and not above it, digit by digit.
 */
export function positiveIntegerPattern(max: number): string {
  const digits = String(max);
  const alternatives = [digits.length > 1 ? `[1-9]\\d{0,${digits.length - 2}}` : `[1-${digits}]`];
  for (let at = 0; at < digits.length && digits.length > 1; at++) {
    const digit = Number(digits[at]);
    const lowest = at === 0 ? 1 : 0;
    if (digit > lowest) {
      const rest = digits.length - at - 1;
      const range = digit - 1 === lowest ? String(lowest) : `[${lowest}-${digit - 1}]`;
      alternatives.push(`${digits.slice(0, at)}${range}${rest > 0 ? `\\d{${rest}}` : ''}`);
    }
  }
  if (digits.length > 1) alternatives.push(digits);
  return alternatives.join('|');
}

/** The ids of our rows written as digits (`1` to `2147483647`), for documents that give ids as strings. */
export const ROW_ID_DIGITS_PATTERN = positiveIntegerPattern(MAX_ROW_ID);

/** Whether a number can be the id of one of our rows. */
export function isRowId(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1 && value <= MAX_ROW_ID;
}

/** `The group id must be an integer from 1 to 2147483647.`: what every refused id says. */
export const rowIdMessage = (label: string) => `The ${label} must be an integer from 1 to ${MAX_ROW_ID}.`;

/** A row id sent as a JSON number (the bounds of isRowId, spelled so that the document shows them). */
export function rowIdNumber(message: string) {
  return z.int({ error: message }).min(1, message).max(MAX_ROW_ID, message);
}

/** A row id sent as a string of digits (a query parameter), read as the number. */
export function rowIdDigits(message: string) {
  return z
    .string({ error: message })
    .regex(/^\d{1,10}$/, message)
    .transform(Number)
    .refine(isRowId, message);
}
