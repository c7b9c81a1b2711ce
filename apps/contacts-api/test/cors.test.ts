import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { registerClient, registerMember } from '@contacts/auth';
import { launchBrowser } from '@contacts/config/testing/browser';
import { TEST_RATE_LIMIT_WINDOW_SECONDS } from '@contacts/db/testing';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveInBrowser } from './support/code-flow';
import { aClient } from './support/factories';
import { useStack } from './support/use-stack';

/**
 * Cross-origin calls from browser apps (README "Contacts API v4", SECURITY.md "CORS"): the API
 * authenticates with the Authorization header only, never with cookies, so any origin may call it
 * (`Access-Control-Allow-Origin: *`, never with credentials); a browser app must be able to read
 * every answer, errors included.
 */

const ORIGIN = 'http://localhost:5301';
/** Response headers a browser lets a page read without being told (the Fetch standard's safelist). */
const SAFELISTED = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
]);

// A small limit, so that one test can reach 429; every other test uses a token of its own.
const world = useStack({ apiRateLimit: { points: 5, duration: TEST_RATE_LIMIT_WINDOW_SECONDS }, client: false });

const preflight = (path: string, method: string, headers = 'authorization') =>
  fetch(`${world.stack.apiUrl}${path}`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);

const exposed = (response: Response) => list(response.headers.get('access-control-expose-headers'));

/** Every response header the API sends that a page cannot read unless it is exposed. */
function unexposed(response: Response): string[] {
  const all: string[] = [];
  response.headers.forEach((_value, name) => {
    all.push(name);
  });
  const names = all.filter((name) => !SAFELISTED.has(name) && !name.startsWith('access-control-') && name !== 'vary');
  // Connection-level headers are the HTTP server's, not the API's; the browser's own instructions
  // (how to treat the body) are for the browser, not for a page's script.
  const api = names.filter(
    (name) =>
      ![
        'connection',
        'keep-alive',
        'date',
        'transfer-encoding',
        'x-content-type-options',
        'content-security-policy',
      ].includes(name),
  );
  return api.filter((name) => !exposed(response).includes(name));
}

function expectCors(response: Response): void {
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  expect(unexposed(response)).toEqual([]);
}

describe('preflight requests', () => {
  it('are answered 204 before authentication and the rate limit, naming the methods and headers the API takes', async () => {
    const response = await preflight('/v4/contacts', 'GET', 'authorization');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(list(response.headers.get('access-control-allow-methods'))).toEqual(
      expect.arrayContaining(['get', 'head', 'post', 'delete', 'patch']),
    );
    expect(list(response.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining([
        'authorization',
        'dpop',
        'content-type',
        'content-encoding',
        'if-match',
        'if-none-match',
      ]),
    );
    // No token was asked for, nothing was counted.
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(response.headers.get('ratelimit-limit')).toBeNull();
    expect(await response.text()).toBe('');
  });

  it.each([
    ['/v4/contacts/1', 'POST', 'authorization, dpop, content-type, if-match'],
    ['/v4/contacts', 'DELETE', 'authorization, content-type'],
    ['/v4/contacts/1/image', 'GET', 'authorization, if-none-match'],
    ['/v3/contacts/1', 'PATCH', 'authorization, content-type'],
    ['/v3/contacts/1', 'POST', 'authorization, x-http-method-override'],
    ['/openapi.json', 'GET', ''],
  ])('are answered for %s (%s, %s)', async (path, method, headers) => {
    const response = await preflight(path, method, headers);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(list(response.headers.get('access-control-allow-methods'))).toContain(method.toLowerCase());
    expect(list(response.headers.get('access-control-allow-headers'))).toEqual(expect.arrayContaining(list(headers)));
  });

  it('allow every request header /openapi.json documents, and expose every response header it documents', async () => {
    const document = (await (await fetch(`${world.stack.apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; responses?: unknown }>>;
    };
    const requestHeaders = new Set<string>();
    const responseHeaders = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      if (!path.startsWith('/v3/') && !path.startsWith('/v4/')) continue; // the auth server's endpoints
      for (const operation of Object.values(item)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'header') requestHeaders.add(parameter.name.toLowerCase());
        }
        const responses = (operation.responses ?? {}) as Record<string, { headers?: Record<string, unknown> }>;
        for (const response of Object.values(responses)) {
          for (const name of Object.keys(response.headers ?? {})) responseHeaders.add(name.toLowerCase());
        }
      }
    }
    expect(requestHeaders.size).toBeGreaterThan(0);
    expect(responseHeaders.size).toBeGreaterThan(0);
    const allowed = list((await preflight('/v4/contacts', 'GET')).headers.get('access-control-allow-headers'));
    expect([...requestHeaders].filter((name) => !allowed.includes(name))).toEqual([]);
    const reader = await aClient(world.stack);
    const answer = await reader.request('/v4/contacts', { headers: { origin: ORIGIN } });
    const exposedHeaders = exposed(answer);
    expect([...responseHeaders].filter((name) => !SAFELISTED.has(name) && !exposedHeaders.includes(name))).toEqual([]);
  });

  it('leave a plain OPTIONS request (no Access-Control-Request-Method) to the API: 200 with Allow', async () => {
    const response = await fetch(`${world.stack.apiUrl}/v4/contacts`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('allow')).toContain('GET');
  });
});

describe('cross-origin answers carry the CORS headers, errors included', () => {
  it('on a successful read and a create (ETag, Location, RateLimit-*, X-Request-Id readable)', async () => {
    const client = await aClient(world.stack);
    const created = await client.request('/v4/contacts', {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Cross Origin' }),
    });
    expect(created.status).toBe(201);
    expectCors(created);
    expect(exposed(created)).toEqual(
      expect.arrayContaining(['etag', 'location', 'ratelimit-limit', 'ratelimit-remaining', 'x-request-id']),
    );
    const read = await client.request(new URL(created.headers.get('location') ?? '').pathname, {
      headers: { origin: ORIGIN },
    });
    expect(read.status).toBe(200);
    expectCors(read);
  });

  it('on 401 without a token (WWW-Authenticate readable)', async () => {
    const response = await fetch(`${world.stack.apiUrl}/v4/contacts`, { headers: { origin: ORIGIN } });
    expect(response.status).toBe(401);
    expectCors(response);
    expect(exposed(response)).toContain('www-authenticate');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('on 403, 404 and 405', async () => {
    const reader = await aClient(world.stack, { scopes: ['contacts:read'] });
    const forbidden = await reader.request('/v4/contacts', {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(forbidden.status).toBe(403);
    expectCors(forbidden);
    const missing = await reader.request('/v4/contacts/2147483647', { headers: { origin: ORIGIN } });
    expect(missing.status).toBe(404);
    expectCors(missing);
    const refused = await reader.request('/v4/contacts', { method: 'PUT', headers: { origin: ORIGIN } });
    expect(refused.status).toBe(405);
    expectCors(refused);
    expect(exposed(refused)).toContain('allow');
  });

  it('on 429 (Retry-After readable)', async () => {
    const client = await aClient(world.stack);
    let response: Response | undefined;
    for (let i = 0; i < 10; i += 1) {
      response = await client.request('/v4/contacts', { headers: { origin: ORIGIN } });
      if (response.status === 429) break;
      await response.body?.cancel();
    }
    expect(response?.status).toBe(429);
    expectCors(response as Response);
    expect(exposed(response as Response)).toEqual(expect.arrayContaining(['retry-after', 'ratelimit-reset']));
  });

  it('on v3, whose deprecation headers stay and are readable', async () => {
    const anonymous = await fetch(`${world.stack.apiUrl}/v3/contacts`, { headers: { origin: ORIGIN } });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: 'Unauthenticated.' });
    expectCors(anonymous);
    expect(anonymous.headers.get('deprecation')).toBe('@1795305600');
    expect(exposed(anonymous)).toEqual(expect.arrayContaining(['deprecation', 'sunset', 'link']));
    const client = await aClient(world.stack);
    const listed = await client.request('/v3/contacts', { headers: { origin: ORIGIN } });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([]);
    expectCors(listed);
  });

  it('on /openapi.json', async () => {
    const response = await fetch(`${world.stack.apiUrl}/openapi.json`, { headers: { origin: ORIGIN } });
    expect(response.status).toBe(200);
    expectCors(response);
  });

  it('but not on health, readiness and metrics, nor without an Origin', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const response = await fetch(`${world.stack.apiUrl}${path}`, { headers: { origin: ORIGIN } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      await response.body?.cancel();
    }
    const health = await preflight('/healthz', 'GET');
    expect(health.headers.get('access-control-allow-origin')).toBeNull();
    // Not a CORS request: no CORS headers, but a cache must not serve this answer to one.
    const plain = await fetch(`${world.stack.apiUrl}/openapi.json`);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    expect(list(plain.headers.get('vary'))).toContain('origin');
  });
});

describe('a single-page app in Chromium', () => {
  let browser: Browser;
  let site: Server;
  let siteOrigin: string;

  beforeAll(async () => {
    // The app's own origin: another host name and port than the API's and the auth server's.
    const library = await readFile(createRequire(import.meta.url).resolve('oauth4webapi'), 'utf8');
    site = createServer((request, response) => {
      if (request.url === '/oauth4webapi.js') {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(library);
        return;
      }
      // The app loads the OAuth library as a module, as a bundled single-page app would have it.
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!doctype html><title>SPA</title><script type="module">import * as oauth from "/oauth4webapi.js"; window.oauth = oauth;</script>',
        );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteOrigin = `http://localhost:${(site.address() as { port: number }).port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    site?.closeAllConnections();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  });

  it('gets a DPoP token with oauth4webapi and calls the API cross-origin, reading its answers and challenges', async () => {
    const password = 'single page app password 9';
    const member = await registerMember(world.stack.db, { email: 'spa@example.test', name: 'Spa Member', password });
    const redirectUri = `${siteOrigin}/callback`;
    const client = await registerClient(world.stack.db, {
      ownerId: member.id,
      name: 'Browser app',
      redirectUris: [redirectUri],
      isPublic: true,
    });
    const verifier = oauth.generateRandomCodeVerifier();
    const authorize = new URL(`${world.stack.authUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'contacts:read contacts:write',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    // The member's sign-in and consent (the app's page would redirect there).
    const callback = await approveInBrowser(authorize.href, redirectUri, { email: member.email, password });

    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${siteOrigin}/`);
    await page.waitForFunction(() => 'oauth' in window);
    const outcome = await page.evaluate(
      async ({ issuer, apiUrl, clientId, redirectUri, callback, verifier }) => {
        const lib = (window as unknown as { oauth: typeof oauth }).oauth;
        const insecure = { [lib.allowInsecureRequests]: true };
        const as = await lib.processDiscoveryResponse(
          new URL(issuer),
          await lib.discoveryRequest(new URL(issuer), { algorithm: 'oauth2', ...insecure }),
        );
        const app: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
        const DPoP = lib.DPoP(app, await lib.generateKeyPair('ES256'));
        const params = lib.validateAuthResponse(as, app, new URL(callback));
        const tokens = await lib.processAuthorizationCodeResponse(
          as,
          app,
          await lib.authorizationCodeGrantRequest(as, app, lib.None(), params, redirectUri, verifier, {
            DPoP,
            ...insecure,
          }),
        );
        const call = (method: string, path: string, body?: unknown, token = tokens.access_token) =>
          lib.protectedResourceRequest(
            token,
            method,
            new URL(`${apiUrl}${path}`),
            new Headers(body === undefined ? {} : { 'content-type': 'application/json' }),
            body === undefined ? null : JSON.stringify(body),
            { DPoP, ...insecure },
          );
        const created = await call('POST', '/v4/contacts', { name: 'Made in a browser' });
        const listed = await call('GET', '/v4/contacts');
        let challenge: unknown;
        try {
          await call('GET', '/v4/contacts', undefined, 'not-a-live-token');
        } catch (error) {
          challenge = (error as { cause?: unknown }).cause;
        }
        return {
          tokenType: tokens.token_type,
          created: {
            status: created.status,
            location: created.headers.get('location'),
            etag: created.headers.get('etag'),
            requestId: created.headers.get('x-request-id'),
          },
          listed: {
            status: listed.status,
            names: ((await listed.json()) as { data: { name: string }[] }).data.map((contact) => contact.name),
            remaining: listed.headers.get('ratelimit-remaining'),
          },
          challenge,
        };
      },
      {
        issuer: world.stack.authUrl,
        apiUrl: world.stack.apiUrl,
        clientId: client.client_id,
        redirectUri,
        callback: callback.href,
        verifier,
      },
    );
    await page.close();
    expect(pageErrors).toEqual([]);
    expect(outcome.tokenType).toBe('dpop');
    expect(outcome.created).toMatchObject({
      status: 201,
      location: expect.stringMatching(/\/v4\/contacts\/\d+$/),
      etag: expect.any(String),
      requestId: expect.any(String),
    });
    expect(outcome.listed).toEqual({ status: 200, names: ['Made in a browser'], remaining: expect.any(String) });
    // oauth4webapi reads the challenge (it needs WWW-Authenticate exposed to see it at all).
    expect(outcome.challenge).toEqual([
      { scheme: 'dpop', parameters: expect.objectContaining({ error: 'invalid_token', algs: expect.any(String) }) },
    ]);
  });
});
