import { registerClient } from '@contacts/auth';
import { oauthPaths } from '@contacts/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CombinedStack, startCombinedStack } from './support/combined-stack';
import { aMember } from './support/factories';

/**
 * The OpenAPI document's OAuth part (packages/schemas/src/oauth-endpoints.ts) against the
 * authorization server: every request encoding it lists for an endpoint is one the server reads.
 */
let stack: CombinedStack;
let client: { client_id: string; client_secret: string };

beforeAll(async () => {
  stack = await startCombinedStack();
  const owner = await aMember(stack.db);
  const registered = await registerClient(stack.db, {
    ownerId: owner.id,
    name: 'Documented encodings',
    redirectUris: ['http://127.0.0.1:4999/callback'],
  });
  client = { client_id: registered.client_id, client_secret: registered.client_secret as string };
});
afterAll(async () => {
  await stack?.close();
});

const encodingsOf = (path: string): string[] => {
  const operation = oauthPaths()[path] as { post: { requestBody: { content: Record<string, unknown> } } };
  return Object.keys(operation.post.requestBody.content);
};

function encode(contentType: string, parameters: Record<string, string>): string {
  if (contentType === 'application/json') return JSON.stringify(parameters);
  if (contentType === 'application/x-www-form-urlencoded') return new URLSearchParams(parameters).toString();
  throw new Error(`the document lists an encoding this test does not know: ${contentType}`);
}

const post = async (path: string, contentType: string, parameters: Record<string, string>) => {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: encode(contentType, { ...parameters, ...client }),
  });
  return { contentType, status: response.status, body: await response.json().catch(() => undefined) };
};

describe('the OAuth endpoints read every request encoding the OpenAPI document lists', () => {
  // An unknown token: introspection answers {"active": false}, revocation 200 (RFC 7009 §2.2).
  it.each([
    ['/oauth/introspect', { active: false }],
    ['/oauth/revoke', undefined],
  ])('%s', async (path, body) => {
    const encodings = encodingsOf(path);
    expect(encodings).toContain('application/x-www-form-urlencoded');
    for (const contentType of encodings) {
      expect(await post(path, contentType, { token: 'not-a-token' })).toEqual({ contentType, status: 200, body });
    }
  });

  it('/oauth/token (an unknown code: the request is read, the grant refused)', async () => {
    const encodings = encodingsOf('/oauth/token');
    expect(encodings).toEqual(['application/x-www-form-urlencoded', 'application/json']);
    for (const contentType of encodings) {
      const parameters = {
        grant_type: 'authorization_code',
        code: 'not-a-code',
        redirect_uri: 'http://127.0.0.1:4999/callback',
      };
      expect(await post('/oauth/token', contentType, parameters)).toMatchObject({
        contentType,
        status: 400,
        body: { error: 'invalid_grant' },
      });
    }
  });
});
