/**
 * The API's size limits, used by the code that enforces them and by the OpenAPI document that
 * announces them.
 */

/** The largest image a contact can carry, in bytes (a larger upload is refused with 413). */
export const MAX_IMAGE_BYTES = 12 * 1024 * 1024;

/** The largest page of a contact listing (v4 `limit`, v3 `{limit}`). */
export const MAX_LIST_LIMIT = 1000;

/**
 * The largest body the auth server's OAuth endpoints read: oidc-provider's own limit
 * (selective_body.js), answered as a 413 that says so (apps/auth/src/http/token-request-body.ts).
 */
export const MAX_OAUTH_BODY_BYTES = 56 * 1024;

/**
 * The most cards one vCard import may hold: an import is one transaction, and a file of tiny
 * cards (20,000 in 2 KB gzipped) held a database connection, and every other member's requests
 * waiting for one, for minutes.
 */
export const MAX_IMPORT_CARDS = 10_000;

/**
 * The most properties (content lines) one imported card may have; a card with more is skipped.
 * A card of 230,000 unknown X- properties (4.7 MB) was all kept in memory and ended the process.
 */
export const MAX_CARD_PROPERTIES = 1_000;

/** The most contact ids one DELETE /v4/contacts may name. */
export const MAX_DELETE_IDS = 1000;

/** A byte count as people read it: "12 MB" (binary megabytes, as the limit is defined). */
export function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
