import type { Knex } from 'knex';
import { TOKEN_REVOCATION_CHANNEL, type TokenRevocationNotice } from '../token-hash';

// NOTIFY payloads are limited to 8000 bytes; a 43-character hash plus quoting is ~46.
const HASHES_PER_NOTICE = 150;

/**
 * Announces revoked tokens to every contacts-api process. Sent inside the caller's transaction,
 * so PostgreSQL delivers it exactly when the revocation commits.
 */
export async function notifyTokenRevocations(db: Knex | Knex.Transaction, tokenHashes: string[]): Promise<void> {
  for (let start = 0; start < tokenHashes.length; start += HASHES_PER_NOTICE) {
    const notice: TokenRevocationNotice = { token_hashes: tokenHashes.slice(start, start + HASHES_PER_NOTICE) };
    await db.raw('select pg_notify(?, ?)', [TOKEN_REVOCATION_CHANNEL, JSON.stringify(notice)]);
  }
}
