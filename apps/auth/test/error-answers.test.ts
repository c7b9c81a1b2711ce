import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aSignedInMember } from './support/http-browser';

/**
 * Client errors that no route answered itself (an unknown address, a method an address doesn't
 * take, a body over the form limit) come back in the product's shapes: a page for a browser, the
 * OAuth error object for a program; never Koa's plain-text status line.
 */
let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const PROGRAM = { accept: '*/*' };

async function jsonOf(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as { error: string; error_description: string };
}

describe('an address nothing answers', () => {
  it('shows a browser a page in the layout, with the pages’ headers', async () => {
    const response = await fetch(`${server.baseUrl}/settings/nothing-here`, { headers: BROWSER });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    const page = await response.text();
    expect(page).toContain('<h1>Not Found</h1>');
    expect(page).toContain('There is nothing at this address.');
  });

  it('tells a program in the OAuth error shape', async () => {
    const response = await fetch(`${server.baseUrl}/oauth/nothing-here`, { headers: PROGRAM });
    expect(response.status).toBe(404);
    expect(await jsonOf(response)).toEqual({
      error: 'not_found',
      error_description: 'There is nothing at this address.',
    });
  });
});

describe('a method an address does not take', () => {
  it.each([
    ['GET', '/oauth/token', 'POST, OPTIONS'],
    ['PUT', '/oauth/introspect', 'POST, OPTIONS'],
    ['GET', '/oauth/revoke', 'POST, OPTIONS'],
    ['POST', '/oauth/authorize', 'GET, HEAD'],
    ['POST', '/oauth/jwks', 'GET, HEAD, OPTIONS'],
    ['POST', '/.well-known/oauth-authorization-server', 'GET, HEAD, OPTIONS'],
  ])('%s %s at an OAuth endpoint is 405 with Allow: %s and an OAuth error', async (method, path, allow) => {
    const response = await fetch(`${server.baseUrl}${path}`, { method, headers: PROGRAM });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    const body = await jsonOf(response);
    expect(body.error).toBe('invalid_request');
    expect(body.error_description).toContain(path);
  });

  it('answers OPTIONS without an Origin (not a CORS preflight) with the Allow header', async () => {
    const response = await fetch(`${server.baseUrl}/oauth/token`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('is 405 with Allow on a page, as a page for a browser', async () => {
    const response = await fetch(`${server.baseUrl}/login`, { method: 'DELETE', headers: BROWSER });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('POST');
    expect(await response.text()).toContain('This address does not answer this method.');
  });

  it('asks before signing out at GET /logout (a link elsewhere must not sign anyone out): a form that posts there', async () => {
    const { browser } = await aSignedInMember(server);
    const response = await browser.get('/logout');
    expect(response.status).toBe(200);
    const page = response.html;
    expect(page).toMatch(/<form method="post" action="\/logout">[\s\S]*name="csrf"[\s\S]*>Sign out<\/button>/);
  });

  it('is 405, not 501, for a method no router knows', async () => {
    const response = await fetch(`${server.baseUrl}/login`, { method: 'PROPFIND', headers: PROGRAM });
    expect(response.status).toBe(405);
    expect((await jsonOf(response)).error).toBe('method_not_allowed');
  });

  it.each([
    ['PROPFIND', '/nothing-here'],
    ['MKCOL', '/settings/nothing-here'],
    ['LOCK', '/oauth/nothing-here'],
  ])('is 404, not 405, for a method no router knows at an address nothing answers (%s %s)', async (method, path) => {
    const response = await fetch(`${server.baseUrl}${path}`, { method, headers: PROGRAM });
    expect(response.status).toBe(404);
    expect(response.headers.has('allow')).toBe(false);
    expect(await jsonOf(response)).toEqual({
      error: 'not_found',
      error_description: 'There is nothing at this address.',
    });
  });

  it('leaves the endpoints’ own answers alone', async () => {
    // No client named: invalid_client (RFC 6749 §5.2), in the endpoint's own OAuth shape.
    const response = await fetch(`${server.baseUrl}/oauth/token`, { method: 'POST', headers: PROGRAM });
    expect(response.status).toBe(401);
    expect((await jsonOf(response)).error).toBe('invalid_client');
  });
});

describe('a form over the size limit', () => {
  it('is 413 in the page layout for a browser, and nothing is read of it', async () => {
    const response = await fetch(`${server.baseUrl}/login`, {
      method: 'POST',
      headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${'a'.repeat(100 * 1024)}`,
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain('Payload Too Large');
    // In the product's words, not the body parser's.
    expect(page).toContain('What was sent is larger than this address accepts.');
    expect(page).not.toContain('request entity too large');
  });
});
