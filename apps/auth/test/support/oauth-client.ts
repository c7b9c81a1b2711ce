import * as oauth from 'oauth4webapi';
import type { TestApplication } from './factories';

/** oauth4webapi, as a client developer would use it, against the test server (plain http). */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(baseUrl: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
  return oauth.processDiscoveryResponse(issuer, response);
}

export function authorizeUrl(
  as: oauth.AuthorizationServer,
  app: Pick<TestApplication, 'client_id' | 'redirect_uri'>,
  params: Record<string, string> = {},
): string {
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    client_id: app.client_id,
    redirect_uri: app.redirect_uri,
    response_type: 'code',
    scope: '*',
    state: 'state-123',
    ...params,
  }).toString();
  return url.toString();
}

/** Posts a form to the token endpoint exactly as the seed's examples do (credentials in the form). */
export async function tokenRequest(as: oauth.AuthorizationServer, form: Record<string, string>) {
  const response = await fetch(as.token_endpoint as string, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export { oauth };
