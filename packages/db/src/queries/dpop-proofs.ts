import { createHash } from 'node:crypto';
import type { Database } from '../connection';

/**
 * Remembers a DPoP proof's jti (per key) until `expiresAt`; false when it was already seen and
 * has not expired — a replay. One statement, so two replicas racing with the same proof cannot
 * both win: the primary key decides. An expired row with the same key is taken over.
 */
export async function rememberDpopProof(db: Database, jkt: string, jti: string, expiresAt: Date): Promise<boolean> {
  const key = createHash('sha256').update(`${jkt}\u0000${jti}`).digest('base64url');
  const result = await db.raw<{ rows: unknown[] }>(
    `insert into dpop_proofs (key, expires_at) values (?, ?)
     on conflict (key) do update set expires_at = excluded.expires_at
       where dpop_proofs.expires_at <= now()
     returning key`,
    [key, expiresAt],
  );
  return result.rows.length === 1;
}
