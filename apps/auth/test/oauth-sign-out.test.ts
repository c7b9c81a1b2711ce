import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, anApplication, type TestApplication } from './support/factories';
import { type HttpBrowser, httpBrowser } from './support/http-browser';

let server: RunningAuthServer;
let app: TestApplication;
beforeAll(async () => {
  server = await startAuthServer();
  app = await anApplication(server.database.db);
});
afterAll(async () => server?.stop());

const authorizePath = (params: Record<string, string> = {}) =>
  `/oauth/authorize?${new URLSearchParams({
    client_id: app.client_id,
    redirect_uri: app.redirect_uri,
    response_type: 'code',
    scope: 'contacts:read',
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWQTpqz0oaUZc',
    code_challenge_method: 'S256',
    ...params,
  })}`;

/**
 * Follows /oauth/authorize as a browser does, allowing the consent page when it comes: where
 * the flow ends (the client's redirect with a code, or the sign-in page), and as whom it asked.
 */
async function authorize(
  browser: HttpBrowser,
  params: Record<string, string> = {},
): Promise<{ code: string | undefined; signInPage: boolean; consentFor: string | undefined }> {
  let path = authorizePath(params);
  let consentFor: string | undefined;
  for (let step = 0; step < 10; step++) {
    const answer = await browser.get(path);
    if (answer.status === 303 || answer.status === 302) {
      const location = new URL(answer.location as string, server.baseUrl);
      if (location.href.startsWith(app.redirect_uri)) {
        return { code: location.searchParams.get('code') ?? undefined, signInPage: false, consentFor };
      }
      path = location.pathname + location.search;
      continue;
    }
    if (answer.html.includes('name="password"')) return { code: undefined, signInPage: true, consentFor };
    const confirm = /action="(\/interaction\/[^"]+\/confirm)"/.exec(answer.html)?.[1];
    if (!confirm) throw new Error(`unexpected page ${answer.status}: ${answer.html.slice(0, 200)}`);
    consentFor = /\(([^()]+@[^()]+)\)/.exec(answer.html)?.[1];
    const allowed = new URL(
      (await browser.submit(path, confirm, { decision: 'allow' })).location as string,
      server.baseUrl,
    );
    path = allowed.pathname + allowed.search;
  }
  throw new Error('authorization did not end');
}

describe('signing out also ends the OAuth sign-in', () => {
  it('asks for a sign-in again after the member signs out of this browser', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    expect((await authorize(browser)).code).toBeTruthy();

    await browser.submit('/settings/sessions', '/logout', {});
    const afterSignOut = await authorize(browser);
    expect(afterSignOut).toMatchObject({ signInPage: true, code: undefined });
  });

  it('asks for a sign-in again when another browser signed this one out', async () => {
    const member = await aMember(server.database.db);
    const laptop = httpBrowser(server.baseUrl, 'Laptop/1.0');
    const phone = httpBrowser(server.baseUrl, 'Phone/2.0');
    await phone.signIn(member.email, member.password);
    expect((await authorize(phone)).code).toBeTruthy();

    await laptop.signIn(member.email, member.password);
    const sessions = await laptop.get('/settings/sessions');
    const phoneRow = sessions.html.split('<tr class="session">').find((row) => row.includes('Phone/2.0')) as string;
    await laptop.submit('/settings/sessions', /action="([^"]+)"/.exec(phoneRow)?.[1] as string, {});

    expect(await authorize(phone)).toMatchObject({ signInPage: true, code: undefined });
  });

  it('acts as the member now signed in, never as the one before', async () => {
    const first = await aMember(server.database.db);
    const second = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(first.email, first.password);
    expect((await authorize(browser)).code).toBeTruthy();

    await browser.submit('/settings/sessions', '/logout', {});
    await browser.signIn(second.email, second.password);
    const flow = await authorize(browser);
    expect(flow.code).toBeTruthy();
    expect(flow.consentFor).toBe(second.email);
  });

  it('shows the sign-in page when the client asks for a fresh sign-in (prompt=login)', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    expect((await authorize(browser)).code).toBeTruthy();
    expect(await authorize(browser, { prompt: 'login' })).toMatchObject({ signInPage: true });
  });
});
