import { randomBytes } from 'node:crypto';
import { API_DOCS_CLIENT_ID } from '@contacts/config';
import type { AdapterPayload } from '@contacts/db';
import type { AuthConfig } from '../config';
import { apiDocsClientMetadata } from '../lib/api-docs-client';
import { hashClientSecret, hashClientSecrets } from '../lib/client-secrets';
import { isNativeApplication } from '../lib/registered-applications';
import type { ClientDirectory } from './client-directory';

/** The internal client that owns personal access tokens; it can never take part in a flow. */
export const PERSONAL_ACCESS_CLIENT_ID = 'personal-access-tokens';

/**
 * Client metadata as oidc-provider expects it, from four sources: the contacts API's own
 * client (from configuration), the internal personal-access client, the public client of the
 * API documentation (its redirect URI follows the issuer), and the applications
 * members registered (oauth_clients). `client_secret` holds the secret's hash; see
 * compareClientSecret in provider/index.ts.
 */
export function clientMetadataSource(clients: ClientDirectory, config: AuthConfig) {
  const introspectionClient: AdapterPayload = {
    client_id: config.secrets.introspectionClientId,
    client_secret: hashClientSecrets(config.secrets.introspectionClientSecrets),
    client_name: 'Contacts API',
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  };
  const personalAccessClient: AdapterPayload = {
    client_id: PERSONAL_ACCESS_CLIENT_ID,
    client_name: 'Personal access token',
    // [security] It must never authenticate at any endpoint: with `none`, anyone holding a
    // personal token could introspect it (its owner and scopes) or revoke it in its name. The
    // secret is the hash of random bytes forgotten at once, so no credential matches it.
    client_secret: hashClientSecret(randomBytes(32).toString('base64url')),
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  };
  const apiDocsClient = apiDocsClientMetadata(config.issuer);

  return async function findClient(clientId: string): Promise<AdapterPayload | undefined> {
    if (clientId === introspectionClient.client_id) return introspectionClient;
    if (clientId === PERSONAL_ACCESS_CLIENT_ID) return personalAccessClient;
    if (clientId === API_DOCS_CLIENT_ID) return apiDocsClient;
    const row = await clients.find(clientId);
    if (!row) return undefined;
    return {
      client_id: row.client_id,
      client_name: row.name,
      ...(row.is_public ? {} : { client_secret: row.secret_hash }),
      redirect_uris: row.redirect_uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: row.is_public ? 'none' : 'client_secret_basic',
      // RFC 8252: a native app's loopback redirect URI may name any port.
      application_type: isNativeApplication(row) ? 'native' : 'web',
      // [security] a DPoP-required client gets no token without a DPoP proof.
      dpop_bound_access_tokens: row.dpop_bound_access_tokens,
      owner_id: row.owner_id,
    };
  };
}
