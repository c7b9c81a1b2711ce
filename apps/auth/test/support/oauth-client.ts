import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import type { RunningAuthServer } from './auth-server';
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

/**
 * A refresh by an application, as oauth4webapi sends it (client_secret_post), with a DPoP proof
 * when given a DPoP handle. An error answer rejects with oauth4webapi's error (`error` is the code).
 */
export async function refreshAsApp(
  as: oauth.AuthorizationServer,
  app: Pick<TestApplication, 'client_id' | 'client_secret'>,
  refreshToken: string,
  additionalParameters?: Record<string, string>,
  DPoP?: oauth.DPoPHandle,
): Promise<oauth.TokenEndpointResponse> {
  const client: oauth.Client = { client_id: app.client_id };
  const auth = oauth.ClientSecretPost(app.client_secret as string);
  const request = () =>
    oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, { additionalParameters, DPoP, ...insecure });
  return oauth.processRefreshTokenResponse(as, client, await request());
}

/**
 * Introspects `token` as the contacts API does: its own client credentials, HTTP Basic with the
 * RFC 6749 §2.3.1 encoding. Anything but 200 fails the test.
 */
export async function introspectAsApi(
  server: Pick<RunningAuthServer, 'baseUrl' | 'config'>,
  token: string,
): Promise<{ active: boolean } & Record<string, unknown>> {
  const { introspectionClientId, introspectionClientSecrets } = server.config.secrets;
  const credentials = `${encodeURIComponent(introspectionClientId)}:${encodeURIComponent(introspectionClientSecrets[0] ?? '')}`;
  const response = await fetch(`${server.baseUrl}/oauth/introspect`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
  });
  if (response.status !== 200) throw new Error(`/oauth/introspect answered ${response.status}`);
  return (await response.json()) as { active: boolean } & Record<string, unknown>;
}

/**
 * The error answer of an authorization request that was held back (untrusted-error-redirects.ts):
 * a 400 page without a redirect, whose link back to the application carries the error.
 */
export async function heldErrorAnswer(response: Response): Promise<URL> {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  const page = await response.text();
  expect(page).toContain('You have not authorized this application');
  const link = /<a href="([^"]+)" rel="noreferrer">return to /.exec(page)?.[1];
  if (!link) throw new Error('the page has no link back to the application');
  return new URL(link.replaceAll('&amp;', '&'));
}
