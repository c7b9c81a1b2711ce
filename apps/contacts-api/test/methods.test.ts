import { describe, expect, it } from 'vitest';
import { useStack } from './support/use-stack';

/** RFC 9110 §15.5.6: a 405 names, in Allow, the methods the resource answers. */
type Failure = { error: { code: string; message: string } };

const world = useStack();

const allowOf = (response: Response) =>
  (response.headers.get('allow') ?? '')
    .split(',')
    .map((method) => method.trim())
    .filter((method) => method !== '')
    .sort();

describe('v4 405 answers', () => {
  it.each([
    ['PUT', '/v4/contacts', ['DELETE', 'GET', 'HEAD', 'POST']],
    ['PATCH', '/v4/contacts/1', ['GET', 'HEAD', 'POST']],
    ['PUT', '/v4/contacts/1/image', ['DELETE', 'GET', 'HEAD']],
    ['POST', '/v4/groups', ['GET', 'HEAD']],
    ['PROPFIND', '/v4/business-categories', ['GET', 'HEAD']],
  ])('%s %s → 405 with Allow in the v4 error shape, before any token check', async (method, path, allowed) => {
    for (const authorization of [`Bearer ${world.client.token}`, '']) {
      const response = await fetch(`${world.stack.apiUrl}${path}`, {
        method,
        headers: authorization ? { authorization } : {},
      });
      expect(response.status).toBe(405);
      expect(allowOf(response)).toEqual(allowed);
      expect(((await response.json()) as Failure).error.code).toBe('method_not_allowed');
    }
  });

  it.each([
    ['GET', '/v4/contacts/batch', ['POST']],
    ['DELETE', '/v4/contacts/batch', ['POST']],
    ['GET', '/v4/contacts/import', ['POST']],
    ['POST', '/v4/contacts/changes', ['GET', 'HEAD']],
    ['POST', '/v4/contacts/export', ['GET', 'HEAD']],
  ])(
    '%s %s → 405 with what that fixed path answers (it is no contact id: it was a 404)',
    async (method, path, allowed) => {
      const response = await world.client.request(path, {
        method,
        ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      expect(response.status).toBe(405);
      expect(allowOf(response)).toEqual(allowed);
      expect(((await response.json()) as Failure).error.code).toBe('method_not_allowed');
    },
  );

  it('still answers OPTIONS with the methods, and 404 for what is no contact id', async () => {
    const options = await world.client.request('/v4/contacts/batch', { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(allowOf(options)).toEqual(['POST']);
    expect((await world.client.request('/v4/contacts/abc')).status).toBe(404);
    expect((await world.client.request('/v4/nothing-here', { method: 'PROPFIND' })).status).toBe(404);
  });

  it.each([
    ['PROPFIND', '/v4/nothing-here'],
    ['MKCOL', '/v4'],
    ['LOCK', '/v4/contacts/1/nothing'],
  ])(
    '%s %s, an address nothing answers in a method no route knows → 404 in the v4 shape, no Allow',
    async (method, path) => {
      const response = await world.client.request(path, { method });
      expect(response.status).toBe(404);
      expect(response.headers.has('allow')).toBe(false);
      expect(((await response.json()) as Failure).error.code).toBe('not_found');
    },
  );
});

describe('v3 answers to a method no route knows', () => {
  it('is 405 with Allow where the path has routes', async () => {
    const response = await world.client.request('/v3/contacts', { method: 'PROPFIND' });
    expect(response.status).toBe(405);
    expect(allowOf(response)).toEqual(['GET', 'HEAD', 'POST']);
    expect(await response.json()).toEqual({ message: 'Method not allowed.' });
  });

  it.each([
    ['PROPFIND', '/v3/nothing-here'],
    ['REPORT', '/v3'],
  ])('%s %s, where no route has the path, is 404 as for GET, without an Allow header', async (method, path) => {
    const asked = await world.client.request(path, { method });
    const got = await world.client.request(path);
    expect(asked.status).toBe(404);
    expect(asked.headers.has('allow')).toBe(false);
    expect(await asked.json()).toEqual(await got.json());
  });
});
