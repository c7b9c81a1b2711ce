import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { registerClient, registerMember } from '@contacts/auth';
import { createLogger, DPOP_SIGNING_ALGORITHMS } from '@contacts/config';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessTokenHash } from '../src/auth/dpop-proof';
import { createContactsApi } from '../src/index';
import { approveInBrowser } from './support/code-flow';
import { type Stack, startStack, waitFor } from './support/servers';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT_URI = 'http://127.0.0.1:4999/callback';

let stack: Stack;
let as: oauth.AuthorizationServer;
let member: { id: number; email: string; password: string };

beforeAll(async () => {
  // A limit nobody reaches here, so that its headers show DPoP requests are counted per token.
  stack = await startStack({ apiRateLimit: { points: 10_000, duration: 60 } });
  const issuer = new URL(stack.authUrl);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
  const password = 'correct horse battery staple';
  const created = await registerMember(stack.db, { email: 'dpop@example.test', name: 'Dee Pop', password });
  member = { id: created.id, email: created.email, password };
});
afterAll(async () => stack?.close());

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

async function anApplication(options: { dpopRequired?: boolean } = {}): Promise<oauth.Client> {
  const registered = await registerClient(stack.db, {
    ownerId: member.id,
    name: 'DPoP app',
    redirectUris: [REDIRECT_URI],
    isPublic: true,
    dpopBound: options.dpopRequired ?? false,
  });
  return { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
}

/** The code flow with PKCE, as oauth4webapi runs it, with a DPoP key when one is given. */
async function codeFlow(client: oauth.Client, key?: KeyPair, scope = 'contacts:read contacts:write') {
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const callback = await approveInBrowser(url.href, REDIRECT_URI, member);
  const params = oauth.validateAuthResponse(as, client, callback);
  const DPoP = key ? oauth.DPoP(client, key) : undefined;
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, {
    ...insecure,
    ...(DPoP ? { DPoP } : {}),
  });
  return { response, DPoP };
}

async function introspect(token: string): Promise<Record<string, unknown>> {
  const { introspectionClientId, introspectionClientSecret } = stack.apiConfig;
  const response = await fetch(`${stack.authUrl}/oauth/introspect`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${introspectionClientId}:${introspectionClientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** A DPoP proof built by hand, so that each field can be got wrong on purpose. */
async function proof(
  key: KeyPair,
  claims: { htm?: string; htu?: string; iat?: number; jti?: string; ath?: string | undefined },
  header: Partial<{ alg: string; typ: string; jwk: JWK }> = {},
): Promise<string> {
  const jwk = await exportJWK(key.publicKey);
  return new SignJWT({
    htm: claims.htm ?? 'GET',
    htu: claims.htu ?? `${stack.apiUrl}/v4/contacts`,
    jti: claims.jti ?? crypto.randomUUID(),
    ...(claims.ath !== undefined ? { ath: claims.ath } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header })
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .sign(key.privateKey);
}

/** The algorithms the authorization server binds tokens with: the only ones the API may name. */
const ALGS = DPOP_SIGNING_ALGORITHMS.join(' ');

/** What a proof signed with any other algorithm is told. */
const UNACCEPTED_ALGORITHM = `the DPoP proof is signed with an algorithm this server does not accept: sign it with ${DPOP_SIGNING_ALGORITHMS.join(', ')} (dpop_signing_alg_values_supported)`;

const callApi = (token: string, dpopProof: string | undefined, url = `${stack.apiUrl}/v4/contacts`) =>
  fetch(url, { headers: { authorization: `DPoP ${token}`, ...(dpopProof ? { dpop: dpopProof } : {}) } });

describe('DPoP, end to end with oauth4webapi', () => {
  let key: KeyPair;
  let client: oauth.Client;
  let DPoP: oauth.DPoPHandle;
  let tokens: oauth.TokenEndpointResponse;

  beforeAll(async () => {
    key = await generateKeyPair('ES256');
    client = await anApplication();
    const flow = await codeFlow(client, key);
    DPoP = flow.DPoP as oauth.DPoPHandle;
    tokens = await oauth.processAuthorizationCodeResponse(as, client, flow.response);
  });

  it('names in its challenges exactly the algorithms the authorization server binds tokens with', async () => {
    expect(as.dpop_signing_alg_values_supported).toEqual([...DPOP_SIGNING_ALGORITHMS]);
    const response = await callApi(tokens.access_token, undefined);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `algs="${(as.dpop_signing_alg_values_supported ?? []).join(' ')}"`,
    );
  });

  it('refuses a proof signed with an algorithm the authorization server would not bind (ES384)', async () => {
    const other = await generateKeyPair('ES384');
    const sent = await proof(other, { ath: accessTokenHash(tokens.access_token) }, { alg: 'ES384' });
    const response = await callApi(tokens.access_token, sent);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof", .*algs="ES256 /);
    expect(response.headers.get('www-authenticate')).toContain(`error_description="${UNACCEPTED_ALGORITHM}"`);
    expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });

  it('issues a DPoP token bound to the key, reported by introspection as cnf.jkt', async () => {
    expect(tokens.token_type).toBe('dpop');
    const introspection = await introspect(tokens.access_token);
    expect(introspection).toMatchObject({
      active: true,
      token_type: 'DPoP',
      cnf: { jkt: await calculateJwkThumbprint(await exportJWK(key.publicKey)) },
    });
  });

  it('lets oauth4webapi call the contacts API with a fresh proof each time', async () => {
    for (let i = 0; i < 2; i += 1) {
      const response = await oauth.protectedResourceRequest(
        tokens.access_token,
        'GET',
        new URL(`${stack.apiUrl}/v4/contacts?limit=5`),
        new Headers(),
        null,
        { DPoP, ...insecure },
      );
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
  });

  it('counts DPoP requests against the token’s rate limit', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const response = await callApi(
        tokens.access_token,
        await proof(key, { ath: accessTokenHash(tokens.access_token) }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('10000');
      remaining.push(Number(response.headers.get('ratelimit-remaining')));
      await response.body?.cancel();
    }
    expect(remaining[1]).toBe((remaining[0] as number) - 1);
  });

  it('refuses the DPoP-bound token sent as a bearer token', async () => {
    const response = await fetch(`${stack.apiUrl}/v4/contacts`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token", .*algs="ES256 /);
  });

  it('binds the public client’s refresh token to the key: without a proof it is refused', async () => {
    const without = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, {
      ...insecure,
    });
    expect(without.status).toBe(400);
    expect(await without.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refreshes with a proof of the same key and keeps the binding', async () => {
    const fresh = await codeFlow(client, key);
    const first = await oauth.processAuthorizationCodeResponse(as, client, fresh.response);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first.refresh_token as string, {
        ...insecure,
        DPoP: fresh.DPoP as oauth.DPoPHandle,
      }),
    );
    expect(refreshed.token_type).toBe('dpop');
    expect(await introspect(refreshed.access_token)).toMatchObject({
      cnf: { jkt: await calculateJwkThumbprint(await exportJWK(key.publicKey)) },
    });
  });

  it('refuses a replayed proof, also on another replica on the same database', async () => {
    const once = await proof(key, { ath: accessTokenHash(tokens.access_token) });
    expect((await callApi(tokens.access_token, once)).status).toBe(200);
    const again = await callApi(tokens.access_token, once);
    expect(again.status).toBe(401);
    expect(again.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof"/);

    const replica = await anotherReplica();
    try {
      const elsewhere = await proof(key, { ath: accessTokenHash(tokens.access_token) });
      expect((await callApi(tokens.access_token, elsewhere)).status).toBe(200);
      const replayed = await callApi(tokens.access_token, elsewhere, `${replica.url}/v4/contacts`);
      expect(replayed.status).toBe(401);
      expect(replayed.headers.get('www-authenticate')).toMatch(/error="invalid_dpop_proof"/);
    } finally {
      await replica.close();
    }
  });

  it.each([
    { why: 'no proof', make: async () => undefined, error: 'invalid_dpop_proof' },
    { why: 'garbage', make: async () => 'not.a.jwt', error: 'invalid_dpop_proof' },
    { why: 'an oversized proof', make: async () => 'a'.repeat(9_000), error: 'invalid_dpop_proof' },
    {
      why: 'another method',
      make: (k: KeyPair, ath: string) => proof(k, { ath, htm: 'POST' }),
      error: 'invalid_dpop_proof',
    },
    {
      why: 'another URL',
      make: (k: KeyPair, ath: string) => proof(k, { ath, htu: `${stack.apiUrl}/v4/groups` }),
      error: 'invalid_dpop_proof',
    },
    {
      why: 'an iat two minutes old',
      make: (k: KeyPair, ath: string) => proof(k, { ath, iat: Math.floor(Date.now() / 1000) - 120 }),
      error: 'invalid_dpop_proof',
    },
    {
      why: 'another token’s hash',
      make: (k: KeyPair) => proof(k, { ath: accessTokenHash('another token') }),
      error: 'invalid_dpop_proof',
      description: 'the DPoP proof is for another access token',
    },
    {
      why: 'no ath',
      make: (k: KeyPair) => proof(k, {}),
      error: 'invalid_dpop_proof',
      description: 'the DPoP proof has no ath: a proof sent with an access token carries its hash',
    },
    {
      why: 'typ JWT',
      make: (k: KeyPair, ath: string) => proof(k, { ath }, { typ: 'JWT' }),
      error: 'invalid_dpop_proof',
      description: 'the DPoP proof must have the header typ dpop+jwt',
    },
    {
      why: 'another key than the token’s',
      make: async (_k: KeyPair, ath: string) => proof(await generateKeyPair('ES256'), { ath }),
      error: 'invalid_dpop_proof',
    },
    {
      why: 'alg none',
      make: async (_k: KeyPair, ath: string) => unsigned({ alg: 'none' }, ath),
      error: 'invalid_dpop_proof',
    },
    {
      why: 'alg HS256',
      make: async (_k: KeyPair, ath: string) =>
        new SignJWT({ htm: 'GET', htu: `${stack.apiUrl}/v4/contacts`, jti: 'x', ath })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'c2VjcmV0' } as never })
          .setIssuedAt()
          .sign(new TextEncoder().encode('secret')),
      error: 'invalid_dpop_proof',
      description: UNACCEPTED_ALGORITHM,
    },
    {
      why: 'a private key in the header',
      make: async (_k: KeyPair, ath: string) => {
        const extractable = await generateKeyPair('ES256', { extractable: true });
        return proof(extractable, { ath }, { jwk: await exportJWK(extractable.privateKey) });
      },
      error: 'invalid_dpop_proof',
    },
  ])(
    'answers 401 for $why',
    async ({
      make,
      error,
      description,
    }: {
      make: (k: KeyPair, ath: string) => Promise<string | undefined>;
      error: string;
      description?: string;
    }) => {
      const sent = await make(key, accessTokenHash(tokens.access_token));
      const response = await callApi(tokens.access_token, sent);
      expect(response.status).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain(`DPoP error="${error}"`);
      if (description) expect(challenge).toContain(`error_description="${description}"`);
      expect(challenge).toContain(`algs="${ALGS}"`);
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    },
  );

  it('answers a DPoP request whose token lacks the scope with a DPoP challenge (403 insufficient_scope, RFC 9449 §7.1)', async () => {
    const readerKey = await generateKeyPair('ES256');
    const reader = await anApplication();
    const flow = await codeFlow(reader, readerKey, 'contacts:read');
    const readOnly = await oauth.processAuthorizationCodeResponse(as, reader, flow.response);
    expect(readOnly.token_type).toBe('dpop');
    const response = await fetch(`${stack.apiUrl}/v4/contacts`, {
      method: 'POST',
      headers: {
        authorization: `DPoP ${readOnly.access_token}`,
        dpop: await proof(readerKey, { htm: 'POST', ath: accessTokenHash(readOnly.access_token) }),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'Not written' }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `DPoP error="insufficient_scope", error_description="requires contacts:write", scope="contacts:write", algs="${ALGS}"`,
    );
    expect(await response.json()).toEqual({ error: { code: 'insufficient_scope', message: expect.any(String) } });
    // oauth4webapi sees the challenge in the scheme the request used.
    const read = await oauth.protectedResourceRequest(
      readOnly.access_token,
      'GET',
      new URL(`${stack.apiUrl}/v4/contacts`),
      new Headers(),
      null,
      { DPoP: flow.DPoP as oauth.DPoPHandle, ...insecure },
    );
    expect(read.status).toBe(200);
    await read.body?.cancel();
  });

  it.each([
    ['a token the auth server never issued', 'not-a-live-token'],
    ['a token longer than any of ours', 'a'.repeat(5_000)],
  ])('answers a DPoP request with %s with a DPoP challenge (401 invalid_token)', async (_, token) => {
    const response = await callApi(token, await proof(key, { ath: accessTokenHash(token) }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token", /);
    expect(response.headers.get('www-authenticate')).toContain(`algs="${ALGS}"`);
  });

  it('answers a malformed DPoP credential with a DPoP challenge (401 invalid_token)', async () => {
    const response = await fetch(`${stack.apiUrl}/v4/contacts`, { headers: { authorization: 'DPoP not a token' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token", .*algs=/);
    expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });

  it('refuses a bearer token presented with the DPoP scheme', async () => {
    const bearerClient = await anApplication();
    const flow = await codeFlow(bearerClient);
    const bearer = await oauth.processAuthorizationCodeResponse(as, bearerClient, flow.response);
    expect(bearer.token_type).toBe('bearer');
    const sent = await proof(key, { ath: accessTokenHash(bearer.access_token) });
    const response = await callApi(bearer.access_token, sent);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
  });
});

describe('only access tokens open the API', () => {
  it('refuses a refresh token sent as a bearer token (introspection calls it active, but it is no access token)', async () => {
    const client = await anApplication();
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, (await codeFlow(client)).response);
    const refreshToken = tokens.refresh_token as string;
    expect(await introspect(refreshToken)).toMatchObject({ active: true });
    const bearer = (token: string) =>
      fetch(`${stack.apiUrl}/v4/contacts`, { headers: { authorization: `Bearer ${token}` } });
    expect((await bearer(tokens.access_token)).status).toBe(200);
    const refused = await bearer(refreshToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(
      (await fetch(`${stack.apiUrl}/v3/contacts`, { headers: { authorization: `Bearer ${refreshToken}` } })).status,
    ).toBe(401);
  });
});

describe('a client registered as DPoP-required', () => {
  it('gets no token without a proof, and a DPoP token with one', async () => {
    const client = await anApplication({ dpopRequired: true });
    const without = await codeFlow(client);
    expect(without.response.status).toBe(400);
    // The same request with a proof succeeds below: the missing proof is what is refused.
    expect(await without.response.json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: expect.stringContaining('a DPoP proof is required'),
    });

    const key = await generateKeyPair('ES256');
    const withProof = await codeFlow(client, key);
    expect((await oauth.processAuthorizationCodeResponse(as, client, withProof.response)).token_type).toBe('dpop');
  });
});

/** A JWS with alg none: header.payload. (no signature). */
function unsigned(header: Record<string, unknown>, ath: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ typ: 'dpop+jwt', ...header })}.${part({
    htm: 'GET',
    htu: `${stack.apiUrl}/v4/contacts`,
    jti: crypto.randomUUID(),
    iat: Math.floor(Date.now() / 1000),
    ath,
  })}.`;
}

/** A second contacts API process on the same database, behind the same public URL. */
async function anotherReplica(): Promise<{ url: string; close(): Promise<void> }> {
  const api = await createContactsApi({
    db: stack.db,
    config: stack.apiConfig,
    logger: createLogger('test', { NODE_ENV: 'test' }),
  });
  const server: Server = createServer(api.app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await waitFor(() => api.revocations.listening);
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await api.close();
    },
  };
}
