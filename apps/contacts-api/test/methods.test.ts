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
});
