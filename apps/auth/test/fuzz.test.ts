import type http from 'node:http';
import {
  fuzzRuns,
  fuzzSeed,
  HOSTILE_IDS,
  HOSTILE_STRINGS,
  type RawRequest,
  type RawResponse,
  rawAgent,
  send,
} from '@contacts/config/testing/raw-http';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, anApplication, type TestApplication, type TestMember } from './support/factories';

/**
 * Property-based fuzzing of every endpoint of the authorization server with hostile requests
 * (raw HTTP: any bytes, invalid UTF-8, malformed Basic credentials, random grants, huge headers
 * and query strings, injection strings), signed in or not, with or without a valid CSRF token.
 * Properties: never a 5xx, never a stack trace; OAuth endpoints answer errors as
 * {"error","error_description"}; no redirect leaves for anywhere but this server or the
 * client's registered redirect URI; the stored state (members, clients, tokens, grants,
 * sessions) unchanged after every batch whose requests were all refused. FUZZ_RUNS (default
 * 4,000) sets the number of requests.
 */
const RUNS = fuzzRuns(4_000);
const BATCH = 8;

let server: RunningAuthServer;
let app: TestApplication;
let member: TestMember;
let session = { cookie: '', csrf: '' };
let agent: http.Agent;

async function signedIn(who: TestMember) {
  const page = await fetch(`${server.baseUrl}/login`);
  const seed = page.headers.getSetCookie().map((value) => value.split(';')[0]);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const response = await fetch(`${server.baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: seed.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email: who.email, password: who.password }),
  });
  const sessionCookies = response.headers.getSetCookie().map((value) => value.split(';')[0]);
  return { cookie: [...seed, ...sessionCookies].join('; '), csrf };
}

beforeAll(async () => {
  server = await startAuthServer();
  app = await anApplication(server.database.db);
  member = await aMember(server.database.db);
  await anApplication(server.database.db, { owner: member, name: 'Fuzzed app' });
  session = await signedIn(member);
  agent = rawAgent(BATCH);
});
afterAll(async () => {
  agent?.destroy();
  await server?.stop();
});

const percent = (char: string) =>
  [...Buffer.from(char)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
const latin1 = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, percent);
const segment = (value: string) => latin1(value).replace(/[\s/?#]/g, percent);
const encode = (value: string) => value.replace(/[^A-Za-z0-9\-_.!~*'()]/g, percent);

const hostile = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);
const value = (known: () => string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.nat().map((n) => known()[n % known().length] as string) },
    { weight: 3, arbitrary: hostile },
  );

/** OAuth parameters: real values (client, redirect URI, scopes) mixed with hostile ones. */
const oauthParams = fc.dictionary(
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(
        'grant_type',
        'code',
        'refresh_token',
        'redirect_uri',
        'client_id',
        'client_secret',
        'scope',
        'token',
        'token_type_hint',
        'code_verifier',
        'response_type',
        'state',
        'code_challenge',
        'code_challenge_method',
        'resource',
        'prompt',
        'request',
        'request_uri',
        'nonce',
        'return_to',
        'email',
        'password',
        'csrf',
        'name',
        'redirect_uris',
        'days',
        'scopes',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  ),
  fc.oneof(
    value(() => [
      app.client_id,
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'password',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]),
    value(() => [
      app.redirect_uri,
      'https://evil.example/cb',
      '//evil.example',
      'javascript:alert(1)',
      '/\\evil.example',
    ]),
    value(() => ['*', 'contacts:read contacts:write', 'openid', 'offline_access', 'code', 'token', 'S256', 'plain']),
    value(() => [app.client_secret ?? '', 'wrong', member.email, session.csrf]),
  ),
  { maxKeys: 7 },
);

const basic = fc.oneof(
  fc.constant(undefined),
  fc.constant(() => `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`),
  fc.constant(() => `Basic ${Buffer.from(`${app.client_id}:wrong`).toString('base64')}`),
  fc.constantFrom(
    'Basic',
    'Basic !!!',
    'Basic %zz',
    'Bearer x',
    'Basic Og==',
    `Basic ${Buffer.from('%zz:%E0%A4%A').toString('base64')}`,
    `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0xc3]).toString('base64')}`,
  ),
  hostile.map((text) => latin1(`Basic ${Buffer.from(text).toString('base64')}`)),
);

interface Endpoint {
  path: string;
  kind: 'oauth-json' | 'authorize' | 'page' | 'metadata';
}
const endpoint: fc.Arbitrary<Endpoint> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<Endpoint>(
      { path: '/oauth/token', kind: 'oauth-json' },
      { path: '/oauth/introspect', kind: 'oauth-json' },
      { path: '/oauth/revoke', kind: 'oauth-json' },
      { path: '/oauth/revoke-leaked', kind: 'oauth-json' },
    ),
  },
  { weight: 2, arbitrary: fc.constant<Endpoint>({ path: '/oauth/authorize', kind: 'authorize' }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Endpoint>(
      { path: '/oauth/jwks', kind: 'metadata' },
      { path: '/.well-known/oauth-authorization-server', kind: 'metadata' },
      { path: '/.well-known/openid-configuration', kind: 'metadata' },
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          '/',
          '/login',
          '/logout',
          '/settings/applications',
          '/settings/tokens',
          '/settings/authorized-apps',
          '/settings/security',
          '/settings/sessions',
          '/settings/password',
          '/healthz',
          '/readyz',
          '/assets/auth.css',
          '/metrics',
        ),
        fc.constantFrom(...HOSTILE_IDS).map((id) => `/settings/applications/${segment(id)}/rotate-secret`),
        fc.constantFrom(...HOSTILE_IDS).map((id) => `/settings/applications/${segment(id)}/delete`),
        fc.constantFrom(...HOSTILE_IDS).map((id) => `/settings/tokens/${segment(id)}/revoke`),
        fc.constantFrom(...HOSTILE_IDS).map((id) => `/settings/authorized-apps/${segment(id)}/revoke`),
        fc.constantFrom(...HOSTILE_IDS).map((id) => `/settings/sessions/${segment(id)}/sign-out`),
        fc
          .tuple(
            fc.constantFrom(...HOSTILE_IDS, 'abc'),
            fc.constantFrom('', '/login', '/confirm', '/switch-account', '/abort'),
          )
          .map(([uid, step]) => `/interaction/${segment(uid)}${step}`),
        fc.string({ maxLength: 20 }).map((rest) => `/${segment(rest)}`),
      )
      .map<Endpoint>((path) => ({ path, kind: 'page' })),
  },
);

const generatedRequest = fc
  .record({
    endpoint,
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('GET', 'POST') },
      { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND') },
    ),
    params: oauthParams,
    inQuery: fc.boolean(),
    encoding: fc.constantFrom('form', 'form', 'json', 'raw-bytes', 'multipart', 'none', 'form-raw-latin1'),
    contentType: fc.option(
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded; charset=utf-16',
        'garbage',
      ),
    ),
    authorization: basic,
    signedIn: fc.boolean(),
    withCsrf: fc.boolean(),
    rawBytes: fc.uint8Array({ maxLength: 200 }),
    padding: fc.oneof(
      { weight: 8, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }) },
    ),
    hugeQuery: fc.oneof(
      { weight: 8, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 20_000 }) },
    ),
  })
  .map(
    ({
      endpoint,
      method,
      params,
      inQuery,
      encoding,
      contentType,
      authorization,
      signedIn,
      withCsrf,
      rawBytes,
      padding,
      hugeQuery,
    }) => {
      const entries = Object.entries(params);
      if (withCsrf && session.csrf) entries.push(['csrf', session.csrf]);
      const query = inQuery || method === 'GET' ? entries.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&') : '';
      const big = hugeQuery > 0 ? `q=${'b'.repeat(hugeQuery)}` : '';
      const path = `${endpoint.path}${query || big ? `?${[query, big].filter(Boolean).join('&')}` : ''}`;
      const headers: Record<string, string> = {};
      const auth = typeof authorization === 'function' ? authorization() : authorization;
      if (auth !== undefined) headers.authorization = auth;
      if (signedIn) headers.cookie = session.cookie;
      if (padding > 0) headers['x-padding'] = 'p'.repeat(padding);
      let body: Buffer | undefined;
      let type: string | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        if (encoding === 'form')
          [body, type] = [
            Buffer.from(entries.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')),
            'application/x-www-form-urlencoded',
          ];
        if (encoding === 'form-raw-latin1')
          [body, type] = [
            Buffer.from(entries.map(([k, v]) => `${latin1(k)}=${latin1(v)}`).join('&'), 'latin1'),
            'application/x-www-form-urlencoded',
          ];
        if (encoding === 'json')
          [body, type] = [Buffer.from(JSON.stringify(Object.fromEntries(entries))), 'application/json'];
        if (encoding === 'raw-bytes') body = Buffer.from(rawBytes);
        if (encoding === 'multipart')
          [body, type] = [
            Buffer.from(
              `--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n${latin1(entries[0]?.[1] ?? '')}`,
              'latin1',
            ),
            'multipart/form-data; boundary=x',
          ];
      }
      const finalType = contentType ?? type;
      if (finalType !== undefined) headers['content-type'] = finalType;
      const request: RawRequest = { method, path, headers, body };
      return { request, endpoint };
    },
  );

async function stateChecksum(): Promise<string> {
  const { rows } = (await server.database.db.raw(
    `select md5(coalesce((select string_agg(t::text, '|' order by t.id) from members t), '')) as members,
            md5(coalesce((select string_agg(t::text, '|' order by t.client_id) from oauth_clients t), '')) as clients,
            md5(coalesce((select string_agg(t::text, '|' order by t.id) from personal_access_tokens t), '')) as tokens,
            md5(coalesce((select string_agg(t.model || t.id_hash || t.payload::text || coalesce(t.consumed_at::text, ''), '|' order by t.model, t.id_hash) from oidc_models t), '')) as models,
            md5(coalesce((select string_agg(t::text, '|' order by t::text) from member_sessions t), '')) as sessions`,
  )) as { rows: Array<Record<string, string>> };
  return JSON.stringify(rows[0]);
}

const statuses = new Map<number, number>();
const failures: string[] = [];
let refusedByHttpParser = 0;

function allowedRedirect(location: string): boolean {
  if (/^\/(?![/\\])/.test(location)) return true;
  return location.startsWith(`${server.baseUrl}/`) || location.startsWith(`${app.redirect_uri}?`);
}

function checkAnswer(generated: { request: RawRequest; endpoint: Endpoint }, response: RawResponse): void {
  const { request, endpoint } = generated;
  const describeIt = () =>
    `${request.method} ${request.path.slice(0, 200)} (${request.headers['content-type'] ?? '-'}) → ${response.status} ${response.text.slice(0, 300)}`;
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  if (response.status >= 500) failures.push(`5xx: ${describeIt()}`);
  const location = response.headers.location;
  if (location && !allowedRedirect(location)) failures.push(`redirect to ${location}: ${describeIt()}`);
  if (response.text.includes('    at ') || /node_modules|\.ts:\d+/.test(response.text))
    failures.push(`stack trace: ${describeIt()}`);
  if (response.status < 400 || request.method === 'HEAD') return;
  if (
    (response.status === 400 || response.status === 431) &&
    response.text === '' &&
    response.headers.connection === 'close'
  ) {
    refusedByHttpParser += 1;
    return;
  }
  // Any request to an OAuth endpoint or a metadata document gets an OAuth error: the provider's
  // own for the methods it routes, 405 with one for the others (http/endpoint-methods.ts).
  if (endpoint.kind === 'oauth-json' || endpoint.kind === 'metadata') {
    let parsed: { error?: unknown; error_description?: unknown } | undefined;
    try {
      parsed = JSON.parse(response.text);
    } catch {
      failures.push(`not JSON: ${describeIt()}`);
      return;
    }
    if (typeof parsed?.error !== 'string' || typeof parsed.error_description !== 'string')
      failures.push(`not {"error","error_description"}: ${describeIt()}`);
  }
}

describe(`fuzzing the authorization server (${RUNS} generated requests)`, () => {
  it('never answers 5xx or a stack trace, answers OAuth errors in their shape, never redirects elsewhere, and refused requests change nothing', async () => {
    let sent = 0;
    let unchangedChecks = 0;
    const started = Date.now();
    const result = await fc.check(
      fc.asyncProperty(fc.array(generatedRequest, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const before = await stateChecksum();
        const responses = await Promise.all(
          batch.map((generated) =>
            send(server.baseUrl, generated.request, agent).catch((error: Error) => {
              if (/socket hang up|ECONNRESET|EPIPE/.test(error.message)) {
                refusedByHttpParser += 1;
                return undefined;
              }
              throw new Error(`${generated.request.method} ${generated.request.path.slice(0, 120)}: ${error.message}`);
            }),
          ),
        );
        sent += batch.length;
        let allRefused = true;
        batch.forEach((generated, index) => {
          const response = responses[index];
          if (!response) return;
          checkAnswer(generated, response);
          if (response.status < 400) allRefused = false;
        });
        if (allRefused) {
          unchangedChecks += 1;
          expect(await stateChecksum()).toBe(before);
        }
        expect(failures.slice(0, 5)).toEqual([]);
      }),
      { numRuns: Math.ceil(RUNS / BATCH), endOnFailure: true, ...fuzzSeed() },
    );
    if (result.failed) {
      throw new Error(
        `fuzzing failed (seed ${result.seed}): ${failures.slice(0, 10).join('\n') || String(result.errorInstance).slice(0, 2000)}`,
      );
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `auth fuzz: ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s); ` +
        `${unchangedChecks} all-refused batches checked unchanged; ${refusedByHttpParser} refused by Node's HTTP parser; ` +
        `statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
    );
  }, 300_000);
});
