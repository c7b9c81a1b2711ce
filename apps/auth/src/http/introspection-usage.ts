import { type Database, tokenHash, touchPersonalAccessToken } from '@contacts/db';
import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Audit } from '../lib/audit';

/**
 * Records when a personal access token was last used: the contacts API introspects every token
 * it has not cached, so a successful introspection of a personal token is a use.
 */
export function recordPersonalTokenUse(db: Database, audit: Audit) {
  return async (ctx: Context, next: Next) => {
    await next();
    const oidc = (ctx as Partial<KoaContextWithOIDC>).oidc;
    if (oidc?.route !== 'introspection' || ctx.status !== 200) return;
    const body = ctx.body as { active?: boolean; personal_access_token?: boolean } | undefined;
    const token = oidc.params?.token;
    if (body?.active && body.personal_access_token && typeof token === 'string') {
      const firstUse = await touchPersonalAccessToken(db, tokenHash(token)).catch(() => undefined);
      if (firstUse) {
        await audit('personal_token.first_used', { memberId: firstUse.member_id, details: { token_id: firstUse.id } });
      }
    }
  };
}
