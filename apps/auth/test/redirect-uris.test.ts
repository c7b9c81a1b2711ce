import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../src/index';
import { MAX_REDIRECT_URI_LENGTH } from '../src/lib/registered-applications';
import { InputError } from '../src/lib/validation';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, type TestMember } from './support/factories';
import { httpBrowser } from './support/http-browser';

/**
 * Registering redirect URIs: one per line, each exactly one absolute URL that oidc-provider will
 * accept later (a URI it refuses would break every authorization request of the application).
 */
let server: RunningAuthServer;
let owner: TestMember;
beforeAll(async () => {
  server = await startAuthServer();
  owner = await aMember(server.database.db);
});
afterAll(async () => server?.stop());

const register = (redirectUris: unknown) =>
  registerClient(server.database.db, { ownerId: owner.id, name: 'App', redirectUris });
const refusal = async (redirectUris: unknown) => {
  const error = await register(redirectUris).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, JSON.stringify(redirectUris)).toBeInstanceOf(InputError);
  return (error as InputError).message;
};

describe('redirect URI registration', () => {
  it('takes one URI per line, under the usual rules, and refuses a line holding more than one URL, naming it', async () => {
    const client = await register(
      '  https://a.example/cb1 \r\n\r\n\thttps://a.example/cb2\n\nhttp://localhost:4000/cb\n',
    );
    expect(client.redirect_uris).toEqual([
      'https://a.example/cb1',
      'https://a.example/cb2',
      'http://localhost:4000/cb',
    ]);
    expect(await refusal('http://a.example/cb')).toContain('must use https');
    expect(await refusal('com.example.app:/cb')).toContain('must use https');
    expect(await refusal('/cb')).toContain('is not an absolute URL');
    expect(await refusal('\n \n')).toBe('Add at least one redirect URI.');
    expect((await register(['http://127.0.0.1:8080/cb', 'http://[::1]/cb'])).redirect_uris).toHaveLength(2);
    expect(await refusal('https://a.example/cb1, https://a.example/cb2')).toBe(
      '"https://a.example/cb1, https://a.example/cb2" is not one URL: put each redirect URI on a line of its own, without spaces or commas.',
    );
    expect(await refusal('https://a.example/c b')).toContain('"https://a.example/c b" is not one URL');
    expect(await refusal('https://a.example/cb1,https://a.example/cb2')).toContain('is not one URL');
  });

  it('refuses any fragment, a bare "#" included', async () => {
    expect(await refusal('https://a.example/cb#')).toBe('"https://a.example/cb#" must not contain a fragment (#…).');
    expect(await refusal('https://a.example/cb#x')).toContain('must not contain a fragment');
  });

  it('refuses a URI longer than any authorization request can carry, without echoing it whole', async () => {
    const base = 'https://a.example/';
    const longest = `${base}${'x'.repeat(MAX_REDIRECT_URI_LENGTH - base.length)}`;
    expect((await register(longest)).redirect_uris).toEqual([longest]);
    const message = await refusal(`${longest}x`);
    expect(message).toBe(`"${longest.slice(0, 40)}…" is longer than ${MAX_REDIRECT_URI_LENGTH} characters.`);
  });

  it('refuses a % that is no percent-encoding', async () => {
    expect((await register('https://a.example/a%2Fb%c3%a9')).redirect_uris).toEqual(['https://a.example/a%2Fb%c3%a9']);
    for (const uri of ['https://a.example/%zz', 'https://a.example/cb?x=%', 'https://a.example/%4']) {
      expect(await refusal(uri)).toBe(`"${uri}" has a % that is no percent-encoding (%XX, two hex digits).`);
    }
  });

  it('refuses a wildcard host and port 0, which no redirect could ever match or reach', async () => {
    expect(await refusal('https://*.example.com/cb')).toBe(
      '"https://*.example.com/cb" has a * in its host: redirect URIs are matched exactly, so register each one in full.',
    );
    expect(await refusal('http://localhost:0/cb')).toBe(
      '"http://localhost:0/cb" names port 0, which nothing listens on.',
    );
    // A * elsewhere is an ordinary character of the URI, matched exactly like the rest.
    expect((await register('https://a.example/cb/*')).redirect_uris).toEqual(['https://a.example/cb/*']);
  });

  it('refuses a user name or password', async () => {
    for (const uri of ['https://user:pw@a.example/cb', 'https://user@a.example/cb', 'https://@a.example/cb']) {
      expect(await refusal(uri)).toBe(`"${uri}" must not contain a user name or password (user:password@…).`);
    }
  });

  it('refuses control characters without echoing them', async () => {
    for (const uri of ['https://a.example/c\u0000b', 'https://a.example/c\u007fb', 'https://a.example/c\u0085b']) {
      expect(await refusal(uri)).toBe('"https://a.example/c\uFFFDb" must not contain control characters.');
    }
  });

  it('refuses a URI not written as applications send it, naming the exact form to register instead', async () => {
    for (const [typed, sent] of [
      ['HTTPS://EXAMPLE.COM/CB', 'https://example.com/CB'],
      ['https://例え.jp/cb', 'https://xn--r8jz45g.jp/cb'],
      ['https://x.example/cb?a="><b>', 'https://x.example/cb?a=%22%3E%3Cb%3E'],
      ['https://a.example', 'https://a.example/'],
      ['https://a.example:443/cb', 'https://a.example/cb'],
      ['https://a.example/x/../cb', 'https://a.example/cb'],
    ]) {
      expect(await refusal(typed)).toBe(
        `"${typed}" is not written as applications send it, and redirect URIs are matched character for character: register "${sent}" instead.`,
      );
    }
    await expect(
      registerClient(server.database.db, {
        ownerId: owner.id,
        name: 'Native',
        redirectUris: ['Com.Example.App:/cb'],
        isPublic: true,
      }),
    ).rejects.toThrow('register "com.example.app:/cb" instead');
  });

  it('registers the suggested form, and an authorization request with what URL parsing sends matches it exactly', async () => {
    const typed = 'HTTPS://EXAMPLE.COM/CB';
    const suggested = /register "([^"]+)" instead/.exec(await refusal(typed))?.[1] as string;
    const client = await register(suggested);
    expect(client.redirect_uris).toEqual([new URL(typed).href]);
    const authorize = (redirectUri: string) =>
      fetch(
        `${server.baseUrl}/oauth/authorize?${new URLSearchParams({
          client_id: client.client_id,
          redirect_uri: redirectUri,
          response_type: 'code',
          scope: 'contacts:read',
        })}`,
        { redirect: 'manual' },
      );
    expect((await authorize(new URL(typed).href)).status).toBe(303);
    // Still exact: the spelling that was refused is not matched either.
    expect((await authorize(typed)).status).toBe(400);
  });

  it('refuses it on the settings form and on the edit form alike, with the form to register', async () => {
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(owner.email, owner.password);
    const created = await browser.submit('/settings/applications', '/settings/applications', {
      name: 'Upper case',
      redirect_uris: 'HTTPS://UPPER.EXAMPLE/CB',
    });
    expect(created.status).toBe(422);
    expect(created.html).toContain('register &quot;https://upper.example/CB&quot; instead.');
    const client = await register('https://upper.example/CB');
    const edit = `/settings/applications/${client.client_id}`;
    const edited = await browser.submit(edit, edit, { name: 'App', redirect_uris: 'https://upper.example:443/CB' });
    expect(edited.status).toBe(422);
    expect(edited.html).toContain('register &quot;https://upper.example/CB&quot; instead.');
  });

  it('answers the settings form with its 422 message for a NUL character, not a server error', async () => {
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(owner.email, owner.password);
    const response = await browser.submit('/settings/applications', '/settings/applications', {
      name: 'NUL app',
      redirect_uris: 'https://a.example/c\u0000b',
    });
    expect(response.status).toBe(422);
    expect(response.html).toContain('must not contain control characters.');
    expect(await server.database.db('oauth_clients').where({ name: 'NUL app' }).first()).toBeUndefined();
  });
});

describe('native apps (RFC 8252)', () => {
  const registerPublic = (redirectUris: string[]) =>
    registerClient(server.database.db, { ownerId: owner.id, name: 'Native app', redirectUris, isPublic: true });

  /** The authorization endpoint's answer to this client and redirect URI: 303 onwards, or 400. */
  const authorizationStatus = async (clientId: string, redirectUri: string) =>
    (
      await fetch(
        `${server.baseUrl}/oauth/authorize?${new URLSearchParams({
          client_id: clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          scope: 'contacts:read',
          state: 'native',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual' },
      )
    ).status;

  it('lets a public app register a private-use scheme (reverse domain name), and nobody else', async () => {
    const client = await registerPublic(['com.example.app:/oauth2redirect']);
    expect(client.redirect_uris).toEqual(['com.example.app:/oauth2redirect']);
    expect(await authorizationStatus(client.client_id, 'com.example.app:/oauth2redirect')).toBe(303);
    expect(await refusal('com.example.app:/oauth2redirect')).toContain('must use https');
    for (const uri of ['javascript:alert(1)', 'myapp:/cb', 'data:text/plain;x', 'file:///etc/passwd']) {
      await expect(registerPublic([uri])).rejects.toThrow('must use https');
    }
    await expect(registerPublic(['com.example.app:/cb', 'https://localhost/cb'])).rejects.toThrow(
      'cannot be registered beside a private-use scheme',
    );
  });

  it('accepts any port on a public app’s loopback redirect URI, as a native app picks a free one each time (§7.3)', async () => {
    const client = await registerPublic(['http://127.0.0.1/native', 'https://app.example/cb']);
    expect(await authorizationStatus(client.client_id, 'http://127.0.0.1:51234/native')).toBe(303);
    expect(await authorizationStatus(client.client_id, 'http://127.0.0.1/native')).toBe(303);
    // Only the port varies: the path must still match exactly.
    expect(await authorizationStatus(client.client_id, 'http://127.0.0.1:51234/other')).toBe(400);
    expect(await authorizationStatus(client.client_id, 'https://app.example:8443/cb')).toBe(400);
  });

  it('keeps a confidential app’s loopback redirect URI exact, port included', async () => {
    const client = await register(['http://127.0.0.1:4999/cb']);
    expect(await authorizationStatus(client.client_id, 'http://127.0.0.1:4999/cb')).toBe(303);
    expect(await authorizationStatus(client.client_id, 'http://127.0.0.1:5000/cb')).toBe(400);
  });
});
