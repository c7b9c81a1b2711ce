/** The largest id of our tables: their ids are PostgreSQL `integer`s. */
export const MAX_ROW_ID = 2_147_483_647;

/**
 * Whether a number can be the id of one of our rows. A larger one names no row, and sent to
 * PostgreSQL it would fail the whole query ("value out of range for type integer") instead.
 */
export function isRowId(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1 && value <= MAX_ROW_ID;
}
