import type { Knex } from 'knex';

/** The PostgreSQL NOTIFY channel on which the auth server announces revoked tokens. */
export const TOKEN_REVOCATION_CHANNEL = 'token_revocations';

/** oidc-provider models whose values are bearer credentials kept in memory (by the contacts API and the auth server). */
export const ANNOUNCED_TOKEN_MODELS: ReadonlySet<string> = new Set(['AccessToken']);

/** Payload of one notification on TOKEN_REVOCATION_CHANNEL (the hashes are tokenHash values). */
export interface TokenRevocationNotice {
  token_hashes: string[];
}

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

/**
 * The token hashes a notice names; undefined when the notice cannot be read (a listener then
 * forgets everything it holds rather than guess).
 */
export function readTokenRevocationNotice(payload: string): string[] | undefined {
  let notice: { token_hashes?: unknown };
  try {
    notice = JSON.parse(payload) as typeof notice;
  } catch {
    return undefined;
  }
  if (!Array.isArray(notice.token_hashes)) return undefined;
  return notice.token_hashes.filter((hash): hash is string => typeof hash === 'string');
}
