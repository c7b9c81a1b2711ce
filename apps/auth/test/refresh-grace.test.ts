import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeInBrowser, launchBrowser } from './support/browser';
import { type CallbackServer, startCallbackServer } from './support/callback-server';
import { aMember, anApplication, type TestApplication, type TestMember } from './support/factories';
import { authorizeUrl, discover, tokenRequest } from './support/oauth-client';

/**
 * REFRESH_TOKEN_REUSE_GRACE_SECONDS: a refresh token used once is still accepted for a few
 * seconds (for a client that lost the response); after that, reuse is theft as without it.
 */
let server: RunningAuthServer;
let browser: Browser;
let callbacks: CallbackServer;
let member: TestMember;
let app: TestApplication;
beforeAll(async () => {
  server = await startAuthServer({ refreshTokenReuseGrace: 2 });
  browser = await launchBrowser();
  callbacks = await startCallbackServer();
  member = await aMember(server.database.db);
  app = await anApplication(server.database.db, { redirectUri: callbacks.redirectUri });
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await server?.stop();
});

async function freshTokens() {
  const as = await discover(server.baseUrl);
  const context = await browser.newContext();
  const { callback } = await authorizeInBrowser(await context.newPage(), authorizeUrl(as, app), app.redirect_uri, {
    email: member.email,
    password: member.password,
    decision: 'allow',
  });
  await context.close();
  const code = callback?.searchParams.get('code') as string;
  const exchanged = await tokenRequest(as, {
    grant_type: 'authorization_code',
    client_id: app.client_id,
    client_secret: app.client_secret ?? '',
    redirect_uri: app.redirect_uri,
    code,
  });
  const refresh = (refreshToken: string) =>
    tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.client_id,
      client_secret: app.client_secret ?? '',
    });
  return { tokens: exchanged.body, refresh };
}

describe('refresh-token reuse grace period', () => {
  it('accepts a used refresh token again within the grace period, and treats reuse after it as theft', async () => {
    const { tokens, refresh } = await freshTokens();
    const first = await refresh(tokens.refresh_token as string);
    expect(first.status).toBe(200);
    // The client lost that response and retries with the same refresh token: accepted.
    const retried = await refresh(tokens.refresh_token as string);
    expect(retried.status).toBe(200);
    expect(retried.body.refresh_token).not.toBe(first.body.refresh_token);
    // Both new refresh tokens work (the chain forked within the grace period).
    expect((await refresh(retried.body.refresh_token as string)).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const late = await refresh(tokens.refresh_token as string);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    // Reuse after the grace period revoked the whole grant.
    expect((await refresh(first.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });
});
