import type { Logger } from '@contacts/config';
import { isDatabaseUnavailable } from '@contacts/db';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Audit } from '../lib/audit';
import { isRefreshTokenReuse } from './refresh-token-reuse';

interface ProviderError extends Error {
  error?: string;
  error_description?: string;
  /** The specific reason (e.g. REFRESH_TOKEN_REUSE_DETAIL); error_description stays generic. */
  error_detail?: string;
  status?: number;
}

/**
 * oidc-provider reports why a request failed only through events (the client just sees
 * `invalid_grant`), so they are logged here — with the client id and the reason, never a token,
 * code or secret value.
 */
export function logProviderEvents(provider: Provider, logger: Logger): void {
  // The event names are oidc-provider's; its type definitions list only some of them.
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => void;
  const describe = (ctx: KoaContextWithOIDC | undefined, error: ProviderError) => ({
    route: ctx?.oidc?.route,
    client_id: ctx?.oidc?.client?.clientId,
    error: error.error ?? error.name,
    reason: error.error_detail ?? error.error_description,
  });
  for (const event of ['grant.error', 'authorization.error', 'introspection.error', 'revocation.error'] as const) {
    on(event, (ctx: KoaContextWithOIDC, error: ProviderError) => {
      const details = describe(ctx, error);
      if (isRefreshTokenReuse(error)) {
        logger.warn(
          { event: 'refresh_token.reuse_detected', ...details },
          'refresh token reuse: the whole grant was revoked',
        );
      } else {
        logger.info({ event, ...details }, `${event}: ${details.error}`);
      }
    });
  }
  on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
    logger.info({ event: 'grant.revoked', client_id: ctx?.oidc?.client?.clientId, grant_id: grantId }, 'grant revoked');
  });
  on('server_error', (ctx: KoaContextWithOIDC, error: Error) => {
    // The database out of reach is an outage, answered 503 (http/database-outage.ts) and logged
    // as the app's own routes log it: one warning without a stack, not an error per request.
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: { message: error.message }, route: ctx?.oidc?.route }, 'database unavailable');
      return;
    }
    logger.error(
      { event: 'server_error', route: ctx?.oidc?.route, err: { message: error.message, stack: error.stack } },
      'authorization server error',
    );
  });
}

/** Refresh-token reuse (provider/refresh-token-reuse.ts) is a security event the member should see (it revoked an application's access). */
export function auditRefreshTokenReuse(provider: Provider, audit: Audit): void {
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => void;
  on('grant.error', (ctx: KoaContextWithOIDC, error: ProviderError) => {
    if (!isRefreshTokenReuse(error)) return;
    const accountId = ctx.oidc?.entities?.RefreshToken?.accountId;
    void audit('refresh_token.reuse_detected', {
      memberId: accountId ? Number(accountId) : undefined,
      clientId: ctx.oidc?.client?.clientId,
      ip: ctx.ip,
    });
  });
}
