import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { METADATA_PATHS } from '../provider/configuration';
import { SUPPORTED_SCOPES } from '../provider/scopes';

/**
 * OpenID Connect fields oidc-provider writes into both documents. This server issues no ID
 * tokens and refuses `scope=openid`, so an OAuth client reading RFC 8414 metadata must not be
 * told about ID token algorithms, claims or subject types. (The OpenID document keeps them: its
 * schema requires some, and libraries that only look there still find the endpoints.)
 */
const OPENID_ONLY_FIELDS = [
  'claims_parameter_supported',
  'claims_supported',
  'claim_types_supported',
  'id_token_signing_alg_values_supported',
  'subject_types_supported',
] as const;

/**
 * Completes oidc-provider's metadata documents with what it leaves out:
 * - `scopes_supported`: it lists only its own (OpenID) scopes; the contacts API's are resource scopes.
 * - `revocation_endpoint_auth_methods_supported` and `introspection_endpoint_auth_methods_supported`:
 *   absent means client_secret_basic only (RFC 8414 §2), but both endpoints take every method the
 *   token endpoint takes (the same clients authenticate there).
 */
export async function discoveryMetadata(ctx: Context, next: Next) {
  await next();
  if ((ctx as Partial<KoaContextWithOIDC>).oidc?.route !== 'discovery') return;
  if (ctx.status !== 200 || typeof ctx.body !== 'object' || ctx.body === null) return;
  const metadata = ctx.body as Record<string, unknown>;
  metadata.scopes_supported = SUPPORTED_SCOPES;
  const clientAuthMethods = metadata.token_endpoint_auth_methods_supported;
  if (metadata.revocation_endpoint) metadata.revocation_endpoint_auth_methods_supported = clientAuthMethods;
  if (metadata.introspection_endpoint) metadata.introspection_endpoint_auth_methods_supported = clientAuthMethods;
  if (ctx.path === METADATA_PATHS.oauth) for (const field of OPENID_ONLY_FIELDS) delete metadata[field];
}
