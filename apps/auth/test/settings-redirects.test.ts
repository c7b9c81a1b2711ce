import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { anAccessToken, anApplication } from './support/factories';
import { aSignedInMember, type HttpBrowser, hiddenFields, httpBrowser } from './support/http-browser';
import { discover, introspectAsApi, tokenRequest } from './support/oauth-client';

/**
 * Post/Redirect/Get on the settings pages: a change that reveals nothing answers 303 See Other
 * to its page, which says what was done, so that reloading or going Back repeats nothing; a
 * change that reveals a secret answers with it once, and the same form posted again is harmless.
 */
let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

const signedIn = () => aSignedInMember(server);

/** The form a page shows, with its hidden fields, as a browser would post it. */
async function formOn(browser: HttpBrowser, page: string, action: string, fields: Record<string, string> = {}) {
  const { html } = await browser.get(page);
  const hidden = hiddenFields(html, action);
  if (!hidden.csrf) throw new Error(`no form for ${action} on ${page}`);
  return { ...hidden, ...fields };
}

/** The authorization server accepts these client credentials (a revocation of nothing: 200, not 401). */
async function clientAuthenticates(clientId: string, secret: string): Promise<boolean> {
  const response = await fetch(`${server.baseUrl}/oauth/revoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token: 'not-a-token' }),
  });
  if (response.status !== 200 && response.status !== 401) throw new Error(`/oauth/revoke answered ${response.status}`);
  return response.status === 200;
}

const revealed = (html: string) => /id="revealed-secret">([^<]+)</.exec(html)?.[1];

describe('changes that reveal nothing answer 303 to their page, which shows a notice', () => {
  it('deleting an application', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member, name: 'Doomed app' });
    const action = `/settings/applications/${app.client_id}/delete`;
    const result = await browser.submit(action, action, {});
    expect(result.status).toBe(303);
    expect(result.location).toBe('/settings/applications?notice=deleted');
    const page = await browser.get(result.location as string);
    expect(page.status).toBe(200);
    expect(page.html).toContain('role="status">The application was deleted;');
    expect(page.html).not.toContain('Doomed app');
  });

  it('revoking a personal access token, logged once even if its form is sent again', async () => {
    const { member, browser } = await signedIn();
    const token = await server.auth.personalTokens.create(member.id, { name: 'cron', scopes: ['contacts:read'] });
    const action = `/settings/tokens/${token.id}/revoke`;
    const form = await formOn(browser, action, action);
    const result = await browser.post(action, form);
    expect(result.status).toBe(303);
    expect(result.location).toBe('/settings/tokens?notice=revoked');
    expect((await browser.get(result.location as string)).html).toContain('role="status">The token was revoked;');
    expect(await introspectAsApi(server, token.token)).toEqual({ active: false });

    expect((await browser.post(action, form)).location).toBe('/settings/tokens?notice=revoked');
    const revocations = await server.database.db('audit_events').where({
      member_id: member.id,
      event: 'personal_token.revoked',
    });
    expect(revocations).toHaveLength(1);
  });

  it("revoking an application's access", async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { name: 'Calendar sync' });
    const accessToken = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
    const action = `/settings/authorized-apps/${app.client_id}/revoke`;
    expect((await browser.get('/settings/authorized-apps')).html).toContain('Calendar sync');
    const result = await browser.submit(action, action, {});
    expect(result.status).toBe(303);
    expect(result.location).toBe('/settings/authorized-apps?notice=revoked');
    const page = await browser.get(result.location as string);
    expect(page.html).toContain('role="status">The application&#39;s access was revoked;');
    expect(page.html).not.toContain('Calendar sync');
    expect(await introspectAsApi(server, accessToken)).toEqual({ active: false });
  });

  it('shows only its own notices: a code of another page, or an unknown one, shows nothing', async () => {
    const { browser } = await signedIn();
    for (const [path, notice] of [
      ['/settings/tokens?notice=revoked', 'The token was revoked; it stops working at once.'],
      ['/settings/sessions?notice=signed_out', 'The session was signed out.'],
      ['/settings/password?notice=revoked', undefined],
      ['/settings/tokens?notice=deleted', undefined],
      ['/settings/tokens?notice=constructor', undefined],
    ] as const) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(200);
      expect(/role="status">([^<]*)</.exec(page.html)?.[1], path).toBe(notice);
    }
  });

  it('opens the section for the address of an action on nothing of the member’s, not a 405', async () => {
    const { browser } = await signedIn();
    for (const [path, section] of [
      ['/settings/applications/abc/rotate-secret', '/settings/applications'],
      ['/settings/applications/abc/delete', '/settings/applications'],
      ['/settings/tokens/7/revoke', '/settings/tokens'],
      ['/settings/authorized-apps/abc/revoke', '/settings/authorized-apps'],
      ['/settings/sessions/abc/sign-out', '/settings/sessions'],
    ]) {
      const response = await browser.get(path as string);
      expect(response.status, path).toBe(302);
      expect(response.location, path).toBe(section);
    }
  });

  it('opens the first tab at the settings’ own root, and the sign-in page for a sign-out with nobody signed in', async () => {
    const { browser } = await signedIn();
    for (const path of ['/', '/settings', '/settings/']) {
      const response = await browser.get(path);
      expect(response.status, path).toBe(302);
      expect(response.location, path).toBe('/settings/applications');
    }
    expect((await browser.get('/logout')).html).toContain('Sign out of this site');
    const nobody = await httpBrowser(server.baseUrl).get('/logout');
    expect(nobody.status).toBe(302);
    expect(nobody.location).toBe('/login');
  });
});

describe('a change that cannot be undone is asked first, on a page of its own', () => {
  /**
   * The list links to the change's address; its GET is the question: a form that posts there
   * (CSRF token included) and Cancel back to the section. The list itself holds no form for it.
   */
  async function confirmationOf(browser: HttpBrowser, list: string, action: string, label: string) {
    const listPage = await browser.get(list);
    expect(listPage.html).toContain(`href="${action}" aria-label="${label}"`);
    expect(hiddenFields(listPage.html, action)).toEqual({});
    const page = await browser.get(action);
    expect(page.status).toBe(200);
    expect(hiddenFields(page.html, action).csrf).toBeTruthy();
    expect(page.html).toContain(`<a class="button secondary" href="${list}">Cancel</a>`);
    return page.html;
  }

  it('rotating a secret says every token stops working; Cancel changes nothing, Confirm rotates', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member, name: 'Ledger' });
    const accessToken = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
    const action = `/settings/applications/${app.client_id}/rotate-secret`;
    const page = await confirmationOf(browser, '/settings/applications', action, 'Rotate secret of Ledger');
    expect(page).toContain('<h1>Rotate the secret of Ledger?</h1>');
    expect(page).toContain(
      'The current secret stops working at once, and every token issued to Ledger is revoked: every member using it is signed out of it and must authorize it again.',
    );
    expect(page).toContain('<button type="submit" class="danger">Rotate secret</button>');

    expect((await browser.get('/settings/applications')).status).toBe(200); // Cancel
    expect(await clientAuthenticates(app.client_id, app.client_secret as string)).toBe(true);
    expect(await introspectAsApi(server, accessToken)).toMatchObject({ active: true });

    const confirmed = await browser.submit(action, action, {});
    expect(confirmed.status).toBe(200);
    expect(await clientAuthenticates(app.client_id, revealed(confirmed.html) as string)).toBe(true);
    expect(await clientAuthenticates(app.client_id, app.client_secret as string)).toBe(false);
    expect(await introspectAsApi(server, accessToken)).toEqual({ active: false });
  });

  it('deleting an application says its members lose access; Cancel changes nothing, Confirm deletes', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member, name: 'Old sync' });
    const accessToken = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
    const action = `/settings/applications/${app.client_id}/delete`;
    const page = await confirmationOf(browser, '/settings/applications', action, 'Delete Old sync');
    expect(page).toContain('<h1>Delete Old sync?</h1>');
    expect(page).toContain('every member using it loses access. This cannot be undone.');

    expect((await browser.get('/settings/applications')).html).toContain('Old sync'); // Cancel
    expect(await introspectAsApi(server, accessToken)).toMatchObject({ active: true });

    expect((await browser.submit(action, action, {})).location).toBe('/settings/applications?notice=deleted');
    expect(await server.database.db('oauth_clients').where({ client_id: app.client_id })).toHaveLength(0);
    expect(await introspectAsApi(server, accessToken)).toEqual({ active: false });
    // Its address now opens the list: there is nothing left to ask about.
    expect((await browser.get(action)).location).toBe('/settings/applications');
  });

  it('revoking a personal token says its scripts stop working; Cancel changes nothing, Confirm revokes', async () => {
    const { member, browser } = await signedIn();
    const token = await server.auth.personalTokens.create(member.id, { name: 'backup', scopes: ['contacts:read'] });
    const action = `/settings/tokens/${token.id}/revoke`;
    const page = await confirmationOf(browser, '/settings/tokens', action, 'Revoke backup');
    expect(page).toContain('<h1>Revoke the token backup?</h1>');
    expect(page).toContain('Every script or program using it stops working at once.');

    await browser.get('/settings/tokens'); // Cancel
    expect(await introspectAsApi(server, token.token)).toMatchObject({ active: true });

    expect((await browser.submit(action, action, {})).location).toBe('/settings/tokens?notice=revoked');
    expect(await introspectAsApi(server, token.token)).toEqual({ active: false });
    expect((await browser.get(action)).location).toBe('/settings/tokens');
  });

  it("revoking an app's access says its tokens stop working; Cancel changes nothing, Confirm revokes", async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { name: 'Card index' });
    const accessToken = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
    const action = `/settings/authorized-apps/${app.client_id}/revoke`;
    const page = await confirmationOf(browser, '/settings/authorized-apps', action, 'Revoke access of Card index');
    expect(page).toContain('<h1>Revoke the access of Card index?</h1>');
    expect(page).toContain('Its tokens stop working at once');

    await browser.get('/settings/authorized-apps'); // Cancel
    expect(await introspectAsApi(server, accessToken)).toMatchObject({ active: true });

    expect((await browser.submit(action, action, {})).location).toBe('/settings/authorized-apps?notice=revoked');
    expect(await introspectAsApi(server, accessToken)).toEqual({ active: false });
  });

  it("asks nothing about another member's application or token: their addresses open the section", async () => {
    const { browser } = await signedIn();
    const { member: other } = await signedIn();
    const theirs = await anApplication(server.database.db, { owner: other, name: 'Not yours' });
    const token = await server.auth.personalTokens.create(other.id, { name: 'not yours', scopes: ['contacts:read'] });
    for (const [action, section] of [
      [`/settings/applications/${theirs.client_id}/rotate-secret`, '/settings/applications'],
      [`/settings/applications/${theirs.client_id}/delete`, '/settings/applications'],
      [`/settings/tokens/${token.id}/revoke`, '/settings/tokens'],
      [`/settings/authorized-apps/${theirs.client_id}/revoke`, '/settings/authorized-apps'],
    ]) {
      const answer = await browser.get(action as string);
      expect(answer.status, action).toBe(302);
      expect(answer.location, action).toBe(section);
    }
  });
});

describe('rotating a secret', () => {
  it('shows the new secret once; the same form sent again rotates nothing and revokes nothing', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member, name: 'Ledger' });
    const action = `/settings/applications/${app.client_id}/rotate-secret`;
    const form = await formOn(browser, action, action);
    expect(form.secret_version).toMatch(/^[A-Za-z0-9_-]{16}$/);

    const first = await browser.post(action, form);
    expect(first.status).toBe(200);
    const secret = revealed(first.html) as string;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // It says which application the secret is for.
    expect(first.html).toContain(`For Ledger (client ID: <code id="revealed-client-id">${app.client_id}</code>)`);
    // And what became of the tokens issued with the old secret.
    expect(first.html).toContain(
      'The old secret no longer works, and every token issued to Ledger was revoked: members who had authorized it must authorize it again.',
    );
    expect(await clientAuthenticates(app.client_id, secret)).toBe(true);
    expect(await clientAuthenticates(app.client_id, app.client_secret as string)).toBe(false);
    const issuedSince = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });

    // The reload: the same form, naming the secret that was just replaced.
    const again = await browser.post(action, form);
    expect(again.status).toBe(303);
    expect(again.location).toBe('/settings/applications?notice=already_rotated');
    expect(again.html).not.toContain(secret);
    expect((await browser.get(again.location as string)).html).toContain(
      'This secret was already rotated; the new one was shown once — rotate again to get another.',
    );
    expect(await clientAuthenticates(app.client_id, secret)).toBe(true);
    const as = await discover(server.baseUrl);
    const withNew = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: 'not-a-refresh-token',
      client_id: app.client_id,
      client_secret: secret,
    });
    expect(withNew.body.error).toBe('invalid_grant');
    expect(await introspectAsApi(server, issuedSince)).toMatchObject({ active: true });
    const rotations = await server.database.db('audit_events').where({
      member_id: member.id,
      event: 'application.secret_rotated',
    });
    expect(rotations).toHaveLength(1);

    // The page's fresh form rotates again.
    const next = await browser.submit(action, action, {});
    expect(next.status).toBe(200);
    expect(revealed(next.html)).not.toBe(secret);
    expect(await clientAuthenticates(app.client_id, secret)).toBe(false);
  });

  it('rotates once when the same form arrives twice at once', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member });
    const action = `/settings/applications/${app.client_id}/rotate-secret`;
    const form = await formOn(browser, action, action);
    const answers = await Promise.all([browser.post(action, form), browser.post(action, form)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 303]);
    const secret = revealed(answers.find((answer) => answer.status === 200)?.html ?? '') as string;
    expect(await clientAuthenticates(app.client_id, secret)).toBe(true);
  });

  it('refuses a rotate form without the version of the secret (a page from before), rotating nothing', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member });
    const action = `/settings/applications/${app.client_id}/rotate-secret`;
    const { secret_version: _version, ...form } = await formOn(browser, action, action);
    const result = await browser.post(action, form);
    expect(result.status).toBe(422);
    expect(result.html).toContain('This form is out of date');
    expect(await clientAuthenticates(app.client_id, app.client_secret as string)).toBe(true);
  });
});

describe('creating something shown once', () => {
  it('creates one token from one form, even sent again; the second answer shows no token', async () => {
    const { member, browser } = await signedIn();
    const form = await formOn(browser, '/settings/tokens', '/settings/tokens', {
      name: 'export',
      scopes: 'contacts:read',
      days: '30',
    });
    expect(form.form_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const first = await browser.post('/settings/tokens', form);
    expect(first.status).toBe(201);
    const token = revealed(first.html) as string;
    expect(await introspectAsApi(server, token)).toMatchObject({ active: true });

    const again = await browser.post('/settings/tokens', form);
    expect(again.status).toBe(303);
    expect(again.location).toBe('/settings/tokens?notice=already_created');
    const page = await browser.get(again.location as string);
    expect(page.html).toContain('This form already created its token; it was shown once');
    expect(revealed(page.html)).toBeUndefined();
    expect(await server.database.db('personal_access_tokens').where({ member_id: member.id })).toHaveLength(1);

    // The page's next form is another form: it creates another token.
    const next = await browser.submit('/settings/tokens', '/settings/tokens', { name: 'export 2', scopes: '*' });
    expect(next.status).toBe(201);
    expect(await server.database.db('personal_access_tokens').where({ member_id: member.id })).toHaveLength(2);
  });

  it('creates one token when the same form arrives twice at once; the loser leaves no live token behind', async () => {
    const { member, browser } = await signedIn();
    const form = await formOn(browser, '/settings/tokens', '/settings/tokens', { name: 'twice', scopes: '*' });
    const answers = await Promise.all([browser.post('/settings/tokens', form), browser.post('/settings/tokens', form)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 303]);
    expect(await server.database.db('personal_access_tokens').where({ member_id: member.id })).toHaveLength(1);
    const live = await server.database
      .db('oidc_models')
      .where({ account_id: String(member.id) })
      .whereIn('model', ['Grant', 'AccessToken'])
      .pluck('model');
    expect(live.sort()).toEqual(['AccessToken', 'Grant']);
  });

  it('registers one application from one form, even sent again', async () => {
    const { member, browser } = await signedIn();
    const form = await formOn(browser, '/settings/applications', '/settings/applications', {
      name: 'Once only',
      redirect_uris: 'http://localhost:4999/callback',
    });
    const first = await browser.post('/settings/applications', form);
    expect(first.status).toBe(201);
    const secret = revealed(first.html) as string;
    const again = await browser.post('/settings/applications', form);
    expect(again.status).toBe(303);
    expect(again.location).toBe('/settings/applications?notice=already_registered');
    expect(again.html).not.toContain(secret);
    expect((await browser.get(again.location as string)).html).toContain(
      'This form already registered its application',
    );
    expect(await server.database.db('oauth_clients').where({ owner_id: member.id })).toHaveLength(1);
  });

  it('says of a public application sent again that it is in the list, not that its secret was shown', async () => {
    const { member, browser } = await signedIn();
    const form = await formOn(browser, '/settings/applications', '/settings/applications', {
      name: 'Public once',
      redirect_uris: 'http://localhost:4999/callback',
      client_type: 'public',
    });
    expect((await browser.post('/settings/applications', form)).status).toBe(201);
    const again = await browser.post('/settings/applications', form);
    expect(again.location).toBe('/settings/applications?notice=already_registered_public');
    const page = (await browser.get(again.location as string)).html;
    expect(page).toContain('This form already registered its application; it is in the list below.');
    expect(page).not.toContain('secret was shown');
    expect(await server.database.db('oauth_clients').where({ owner_id: member.id })).toHaveLength(1);
  });

  it('refuses a create form without its one-time id, creating nothing', async () => {
    const { member, browser } = await signedIn();
    const { form_id: _id, ...form } = await formOn(browser, '/settings/tokens', '/settings/tokens', {
      name: 'no id',
      scopes: '*',
    });
    const result = await browser.post('/settings/tokens', form);
    expect(result.status).toBe(422);
    expect(result.html).toContain('This form is out of date');
    expect(await server.database.db('personal_access_tokens').where({ member_id: member.id })).toHaveLength(0);
  });
});

describe('a form sent after the session ended: to sign-in, which says the member was signed out', () => {
  it.each([
    ['/settings/tokens/7/revoke', '/settings/tokens'],
    ['/settings/tokens', '/settings/tokens'],
    ['/settings/applications/abc/rotate-secret', '/settings/applications'],
    ['/settings/applications/abc/delete', '/settings/applications'],
    ['/settings/authorized-apps/abc/revoke', '/settings/authorized-apps'],
    ['/settings/sessions/abc/sign-out', '/settings/sessions'],
    ['/settings/password', '/settings/password'],
  ])('%s sends to sign-in, to come back to %s', async (action, page) => {
    const { member, browser } = await signedIn();
    const form = await formOn(browser, page, '/logout');
    await server.database.db('member_sessions').where({ member_id: member.id }).delete();
    const result = await browser.post(action, form);
    expect(result.status).toBe(303);
    expect(result.location).toBe(`/login?return_to=${encodeURIComponent(page)}&reason=signed_out`);
    // The sign-in page says why the form did nothing; opening a page signed out says nothing.
    expect((await browser.get(result.location as string)).html).toContain(
      'You were signed out meanwhile (in another browser or tab, by a password change, or as your session ended), so the form you sent was not processed.',
    );
    const opened = await browser.get(page);
    expect(opened.location).toBe(`/login?return_to=${encodeURIComponent(page)}`);
    expect((await browser.get(opened.location as string)).html).not.toContain('You were signed out');
  });
});

describe('a refused create form', () => {
  it('shows what was typed again and marks the field the message is about', async () => {
    const { browser } = await signedIn();
    const app = await browser.submit('/settings/applications', '/settings/applications', {
      name: 'Ledger <sync>',
      redirect_uris: 'https://ledger.example/callback\nhttp://ledger.example/insecure',
      dpop_bound_access_tokens: 'on',
    });
    expect(app.status).toBe(422);
    expect(app.html).toContain('value="Ledger &lt;sync&gt;"');
    expect(app.html).toMatch(
      /<textarea id="redirect-uris" name="redirect_uris" required aria-invalid="true" aria-describedby="redirect-hint form-error" autofocus>https:\/\/ledger\.example\/callback\nhttp:\/\/ledger\.example\/insecure<\/textarea>/,
    );
    expect(app.html).toMatch(/id="app-dpop" name="dpop_bound_access_tokens" checked/);
    expect(app.html).toMatch(/<p class="error" role="alert" id="form-error">[^<]*must use https/);
    expect(app.html).not.toMatch(/id="app-name"[^>]*aria-invalid/);

    const token = await browser.submit('/settings/tokens', '/settings/tokens', {
      name: 'nightly export',
      scopes: 'contacts:write',
      days: '999',
    });
    expect(token.status).toBe(422);
    expect(token.html).toContain('value="nightly export"');
    expect(token.html).toMatch(/value="contacts:write" checked/);
    expect(token.html).not.toMatch(/value="contacts:read" checked/);
    expect(token.html).toMatch(
      /id="token-days"[^>]*value="999" aria-invalid="true" aria-describedby="days-hint form-error"/,
    );
  });
});
