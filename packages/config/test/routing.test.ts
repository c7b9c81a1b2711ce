import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asOutermostProxy, isContactsApiPath } from '../src/routing';

describe('isContactsApiPath', () => {
  it('sends the API paths to the contacts API and everything else to the auth server', () => {
    expect(isContactsApiPath('/v4/contacts?limit=1')).toBe(true);
    expect(isContactsApiPath('/v3/contacts/1')).toBe(true);
    expect(isContactsApiPath('/openapi.json')).toBe(true);
    expect(isContactsApiPath('/docs')).toBe(true);
    expect(isContactsApiPath('/oauth/token')).toBe(false);
    expect(isContactsApiPath('/v4')).toBe(true);
    expect(isContactsApiPath('/v40/contacts')).toBe(false);
  });
});

describe('asOutermostProxy (pnpm start as the edge, like the gateway)', () => {
  let url: string;
  let seen: IncomingHttpHeaders | undefined;
  const server = createServer((req, res) => {
    asOutermostProxy(req);
    seen = req.headers;
    res.end();
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('replaces a spoofed X-Forwarded-For with the connecting address, and names the scheme and host', async () => {
    await fetch(`${url}/login`, {
      headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'evil.example' },
    });
    expect(seen?.['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen?.['x-forwarded-proto']).toBe('http');
    expect(seen?.['x-forwarded-host']).toBe(new URL(url).host);
  });

  it('keeps a claim of https (a TLS-terminating proxy in front says so)', async () => {
    await fetch(`${url}/login`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(seen?.['x-forwarded-proto']).toBe('https');
  });
});
