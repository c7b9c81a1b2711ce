import { z } from 'zod';

/**
 * The range of our tables' ids (PostgreSQL `integer`), for every id the API reads: in paths,
 * queries and bodies. A larger one names no row, and sent to PostgreSQL it would fail the whole
 * query ("value out of range for type integer"), a 500, instead of the 422 or 404 it deserves.
 * @contacts/db re-exports these for the code that reads rows by id.
 */
export const MAX_ROW_ID = 2_147_483_647;

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
