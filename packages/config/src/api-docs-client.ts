/**
 * The public OAuth client of the API documentation, shared by the page that uses it (Swagger UI
 * at /docs, served by the contacts API) and the authorization server that knows it as a client.
 */
export const API_DOCS_CLIENT_ID = 'contacts-api-docs';

/** Swagger UI's OAuth callback page, served beside /docs. */
export const API_DOCS_REDIRECT_PATH = '/docs/oauth2-redirect.html';

/** The docs client's one redirect URI under a deployment's public URL (matched exactly). */
export function apiDocsRedirectUri(publicUrl: string): string {
  return `${publicUrl.replace(/\/$/, '')}${API_DOCS_REDIRECT_PATH}`;
}
