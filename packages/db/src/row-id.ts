/**
 * The range of our tables' ids (PostgreSQL `integer`s), defined once with the input rules that
 * use it (@contacts/schemas) and re-exported here for the code that reads rows by id.
 */
export { isRowId, MAX_ROW_ID } from '@contacts/schemas';
