import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import {
  aMember,
  anApplication,
  anAuthorizationCode,
  aRefreshToken,
  type TestApplication,
  type TestMember,
} from './support/factories';
import { discover, introspectAsApi, type oauth, refreshAsApp, tokenRequest } from './support/oauth-client';

/**
 * A refresh token or code presented twice at once (RFC 9700 §4.14.2, RFC 6749 §4.1.2): exactly
 * one request gets tokens, and the other is a second use like any other, so the whole grant is
 * revoked, the tokens the first request was given included. Whichever way the second use is
 * caught (the provider finds the token consumed, or the adapter's atomic consume loses the race),
 * nothing issued from the grant stays alive.
 */
let server: RunningAuthServer;
let as: oauth.AuthorizationServer;
let member: TestMember;
let app: TestApplication;
beforeAll(async () => {
  server = await startAuthServer();
  as = await discover(server.baseUrl);
  member = await aMember(server.database.db);
  app = await anApplication(server.database.db);
});
afterAll(async () => server?.stop());

/** Sends `times` copies of one request at once; answers in order. */
const atOnce = <T>(times: number, request: () => Promise<T>) =>
  Promise.allSettled(Array.from({ length: times }, request));

/** Whether anything the grant behind `tokens` issued still works: the access token, or a refresh. */
async function grantAlive(tokens: { access_token: string; refresh_token?: string | undefined }) {
  if ((await introspectAsApi(server, tokens.access_token)).active) return true;
  return refreshAsApp(as, app, tokens.refresh_token as string).then(
    () => true,
    () => false,
  );
}

describe('a refresh token used twice at once', () => {
  it('gives tokens to one request, and then revokes the whole grant, those tokens included', async () => {
    // Several grants, so that some of the uses overlap at the database whatever the timing.
    for (let round = 0; round < 5; round++) {
      const refreshToken = await aRefreshToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
      const answers = await atOnce(3, () => refreshAsApp(as, app, refreshToken));
      const winners = answers.filter((answer) => answer.status === 'fulfilled');
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const answer of answers) {
        if (answer.status === 'rejected') expect(answer.reason).toMatchObject({ error: 'invalid_grant' });
      }
      const [winner] = winners as PromiseFulfilledResult<oauth.TokenEndpointResponse>[];
      expect(await grantAlive(winner!.value), `round ${round}`).toBe(false);
    }
  });
});

describe('an authorization code exchanged twice at once', () => {
  it('gives tokens to one request, and then revokes the tokens issued from it', async () => {
    for (let round = 0; round < 5; round++) {
      const code = await anAuthorizationCode(server.auth.provider, {
        memberId: member.id,
        clientId: app.client_id,
        redirectUri: app.redirect_uri,
      });
      const exchange = () =>
        tokenRequest(as, {
          grant_type: 'authorization_code',
          client_id: app.client_id,
          client_secret: app.client_secret as string,
          redirect_uri: app.redirect_uri,
          code,
        });
      const answers = (await atOnce(3, exchange)).map((answer) => {
        if (answer.status === 'rejected') throw answer.reason;
        return answer.value;
      });
      const winners = answers.filter((answer) => answer.status === 200);
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const answer of answers) if (answer.status !== 200) expect(answer.body.error).toBe('invalid_grant');
      const tokens = winners[0]!.body as { access_token: string; refresh_token?: string };
      expect(await grantAlive(tokens), `round ${round}`).toBe(false);
    }
  });
});
