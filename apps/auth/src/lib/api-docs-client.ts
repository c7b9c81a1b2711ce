import { API_DOCS_CLIENT_ID, apiDocsRedirectUri } from '@contacts/config';
import type { AdapterPayload } from '@contacts/db';

/**
 * The public OAuth client of the API documentation (Swagger UI at {PUBLIC_URL}/docs). It is
 * built in rather than a row of oauth_clients: redirect URIs are matched exactly and the public
 * URL differs per deployment, so its one redirect URI is derived from the issuer. No member owns
 * it; like every public client it must use PKCE (S256), gets no refresh token (a browser page
 * keeps no long-lived credential), and its tokens carry only the scopes the member approved.
 */
export const API_DOCS_CLIENT_NAME = 'API documentation (Swagger UI)';

export function apiDocsClientMetadata(issuer: string): AdapterPayload {
  return {
    client_id: API_DOCS_CLIENT_ID,
    client_name: API_DOCS_CLIENT_NAME,
    redirect_uris: [apiDocsRedirectUri(issuer)],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
