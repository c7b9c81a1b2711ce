import { listAuditEventsOf } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAcceptablePassword } from '../src/lib/password-policy';
import { InputError } from '../src/lib/validation';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember } from './support/factories';
import { httpBrowser } from './support/http-browser';

let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

const eventsOf = async (memberId: number) =>
  (await listAuditEventsOf(server.database.db, memberId)).map((event) => event.event);

describe('password policy', () => {
  it.each([
    { password: 'elevenchars', why: 'shorter than 12 characters' },
    { password: 'qwerty123456', why: 'a common password' },
    { password: 'QWERTY123456', why: 'a common password in other case' },
    { password: '1qaz2wsx3edc', why: 'a keyboard walk from the list' },
    { password: 'x'.repeat(1025), why: 'longer than 1024 characters' },
    { password: 'ééééééééééé', why: '11 characters although 22 bytes' },
    { password: 'aaaaaaaaaaaaaaaa', why: 'one character repeated' },
    { password: ' '.repeat(12), why: 'twelve spaces' },
  ])('refuses $why', ({ password }) => {
    expect(() => requireAcceptablePassword(password)).toThrow(InputError);
  });

  it('accepts a long uncommon passphrase', () => {
    expect(requireAcceptablePassword('violet otter lamp 42')).toBe('violet otter lamp 42');
  });
});

describe('sign-in', () => {
  it('gives the browser a new session id at every sign-in and ends the one it had', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const first = browser.cookies.get('member_session');
    await browser.signIn(member.email, member.password);
    const second = browser.cookies.get('member_session');
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    const rows = await server.database.db('member_sessions').where({ member_id: member.id });
    expect(rows).toHaveLength(1);
  });

  it('does not keep a session id planted before sign-in', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    browser.cookies.set('member_session', 'planted-by-an-attacker');
    await browser.signIn(member.email, member.password);
    expect(browser.cookies.get('member_session')).not.toBe('planted-by-an-attacker');
    expect((await browser.get('/settings/sessions')).status).toBe(200);
  });
});

describe('browser sessions page', () => {
  it('lists the member’s sessions and signs another one out; that browser is signed out', async () => {
    const member = await aMember(server.database.db);
    const laptop = httpBrowser(server.baseUrl, 'Laptop/1.0');
    const phone = httpBrowser(server.baseUrl, 'Phone/2.0');
    await laptop.signIn(member.email, member.password);
    await phone.signIn(member.email, member.password);

    const page = await laptop.get('/settings/sessions');
    expect(page.status).toBe(200);
    expect(page.html).toContain('Laptop/1.0 <strong>(this browser)</strong>');
    expect(page.html).toContain('Phone/2.0');
    expect(page.html).not.toContain('Phone/2.0 <strong>');
    const rows = page.html.split('<tr class="session">').slice(1);
    const phoneRow = rows.find((row) => row.includes('Phone/2.0')) as string;
    const action = /action="([^"]+)"/.exec(phoneRow)?.[1] as string;

    const signedOut = await laptop.submit('/settings/sessions', action, {});
    expect(signedOut.status).toBe(303);
    expect(signedOut.location).toBe('/settings/sessions?notice=signed_out');
    const after = await laptop.get(signedOut.location as string);
    expect(after.html).toContain('role="status">The session was signed out.');
    expect(after.html).not.toContain('Phone/2.0');
    expect((await phone.get('/settings/sessions')).status).toBe(302);
    expect((await laptop.get('/settings/sessions')).status).toBe(200);
    expect(await eventsOf(member.id)).toContain('session.signed_out');
  });

  it('signs out every other session at once, keeps this one, and logs how many', async () => {
    const member = await aMember(server.database.db);
    const here = httpBrowser(server.baseUrl, 'Here/1.0');
    const others = [httpBrowser(server.baseUrl, 'Phone/2.0'), httpBrowser(server.baseUrl, 'Tablet/3.0')];
    for (const browser of [here, ...others]) await browser.signIn(member.email, member.password);
    const bystander = await aMember(server.database.db);
    const theirs = httpBrowser(server.baseUrl);
    await theirs.signIn(bystander.email, bystander.password);

    const done = await here.submit('/settings/sessions', '/settings/sessions/sign-out-others', {});
    expect(done.status).toBe(303);
    expect(done.location).toBe('/settings/sessions?notice=others_signed_out');
    const after = await here.get(done.location as string);
    expect(after.html).toContain('role="status">Every other session was signed out; this browser stays signed in.');
    expect(after.html.split('<tr class="session">')).toHaveLength(2);
    // Alone now: the button is gone.
    expect(after.html).not.toContain('sign-out-others');
    for (const browser of others) expect((await browser.get('/settings/sessions')).status).toBe(302);
    expect((await theirs.get('/settings/sessions')).status).toBe(200);
    const [logged] = (await listAuditEventsOf(server.database.db, member.id)).filter(
      (event) => event.event === 'session.others_signed_out',
    );
    expect(logged?.details).toEqual({ sessions_signed_out: 2 });
  });

  it('refuses signing out the other sessions without the CSRF token', async () => {
    const member = await aMember(server.database.db);
    const here = httpBrowser(server.baseUrl);
    const other = httpBrowser(server.baseUrl);
    for (const browser of [here, other]) await browser.signIn(member.email, member.password);
    expect((await here.post('/settings/sessions/sign-out-others', { csrf: 'forged' })).status).toBe(403);
    expect((await other.get('/settings/sessions')).status).toBe(200);
  });

  it("names each session's browser as a member knows it, the User-Agent in full on hover", async () => {
    const member = await aMember(server.database.db);
    const firefox = 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1';
    const here = httpBrowser(server.baseUrl, firefox);
    await here.signIn(member.email, member.password);
    await httpBrowser(server.baseUrl, iphone).signIn(member.email, member.password);
    const page = await here.get('/settings/sessions');
    expect(page.html).toContain(`<span title="${firefox}">Firefox on Linux</span> <strong>(this browser)</strong>`);
    expect(page.html).toContain('>Safari on iOS</span>');
  });

  it('refuses a sign-out without the CSRF token', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const page = await browser.get('/settings/sessions');
    const action = /action="(\/settings\/sessions\/[^"]+)"/.exec(page.html)?.[1] as string;
    const response = await browser.post(action, { csrf: 'forged' });
    expect(response.status).toBe(403);
    expect((await browser.get('/settings/sessions')).status).toBe(200);
  });

  it('sends a signed-out visitor to the sign-in page', async () => {
    const response = await httpBrowser(server.baseUrl).get('/settings/sessions');
    expect(response.status).toBe(302);
    expect(response.location).toBe('/login?return_to=%2Fsettings%2Fsessions');
  });
});

describe('changing the password', () => {
  it('needs the current password', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const result = await browser.submit('/settings/password', '/settings/password', {
      current_password: 'not the password at all',
      new_password: 'a brand new passphrase',
    });
    expect(result.status).toBe(422);
    expect(result.html).toContain('The current password is not correct.');
    // The field it is about is marked, and read out with the message.
    expect(result.html).toMatch(/id="current-password"[^>]*aria-invalid="true" aria-describedby="form-error"/);
    expect(result.html).not.toMatch(/id="new-password"[^>]*aria-invalid/);
    await browser.signIn(member.email, member.password);
  });

  it('asks for a current password left empty, without counting it as a wrong one', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    // More empty submissions than the sign-in lock allows wrong passwords (5).
    for (let attempt = 0; attempt < 6; attempt++) {
      const result = await browser.submit('/settings/password', '/settings/password', {
        current_password: '',
        new_password: 'a brand new passphrase',
      });
      expect(result.status).toBe(422);
      expect(result.html).toContain('Enter your current password.');
    }
    const elsewhere = httpBrowser(server.baseUrl);
    await elsewhere.signIn(member.email, member.password);
    expect((await elsewhere.get('/settings/sessions')).status).toBe(200);
  });

  it('answers wrong current passwords past the sign-in lock 429 with Retry-After, as the sign-in page does', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const attempt = () =>
      browser.submit('/settings/password', '/settings/password', {
        current_password: 'not the password at all',
        new_password: 'a brand new passphrase',
      });
    for (let wrong = 0; wrong < 5; wrong++) expect((await attempt()).status).toBe(422);
    // The sixth, sent by hand to read the answer's headers.
    const csrf = /name="csrf" value="([^"]+)"/.exec((await browser.get('/settings/password')).html)?.[1] as string;
    const locked = await fetch(`${server.baseUrl}/settings/password`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
      body: new URLSearchParams({ csrf, current_password: 'still not it', new_password: 'a brand new passphrase' }),
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.text()).toMatch(/Too many wrong passwords\. Try again in \d+ minutes?\./);
  });

  it('applies the password policy to the new password', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const result = await browser.submit('/settings/password', '/settings/password', {
      current_password: member.password,
      new_password: 'qwerty123456',
    });
    expect(result.status).toBe(422);
    expect(result.html).toContain('one of the most common');
    expect(result.html).toMatch(
      /id="new-password"[^>]*aria-invalid="true" aria-describedby="new-password-hint form-error"/,
    );
  });

  it('signs every other session out, keeps this one, and the new password works', async () => {
    const member = await aMember(server.database.db);
    const here = httpBrowser(server.baseUrl);
    const elsewhere = httpBrowser(server.baseUrl);
    await here.signIn(member.email, member.password);
    await elsewhere.signIn(member.email, member.password);
    const token = await server.auth.personalTokens.create(member.id, { name: 'kept', scopes: ['contacts:read'] });

    const result = await here.submit('/settings/password', '/settings/password', {
      current_password: member.password,
      new_password: 'a brand new passphrase',
    });
    expect(result.status).toBe(303);
    expect(result.location).toBe('/settings/password?notice=changed');
    expect((await here.get(result.location as string)).html).toContain(
      'role="status">Your password was changed. Every other browser session was signed out.',
    );
    expect((await elsewhere.get('/settings/sessions')).status).toBe(302);
    expect((await here.get('/settings/sessions')).status).toBe(200);
    await expect(httpBrowser(server.baseUrl).signIn(member.email, member.password)).rejects.toThrow('401');
    await httpBrowser(server.baseUrl).signIn(member.email, 'a brand new passphrase');
    // Tokens are kept unless asked.
    expect((await server.auth.provider.AccessToken.find(token.token))?.accountId).toBe(String(member.id));
    const events = await server.database.db('audit_events').where({ member_id: member.id, event: 'password.changed' });
    expect(events).toHaveLength(1);
    expect(events[0].details).toEqual({ other_sessions_signed_out: 1, tokens_revoked: false });
  });

  it('goes on in this browser under a new session id: a copy of the old cookie is signed out', async () => {
    const member = await aMember(server.database.db);
    const here = httpBrowser(server.baseUrl);
    await here.signIn(member.email, member.password);
    // Someone holding a copy of this browser's cookies (the reason to change a password).
    const thief = httpBrowser(server.baseUrl);
    for (const [name, value] of here.cookies) thief.cookies.set(name, value);
    expect((await thief.get('/settings/sessions')).status).toBe(200);
    const result = await here.submit('/settings/password', '/settings/password', {
      current_password: member.password,
      new_password: 'a passphrase nobody else has',
    });
    expect(result.status).toBe(303);
    expect((await here.get('/settings/sessions')).status).toBe(200);
    expect((await thief.get('/settings/sessions')).status).toBe(302);
  });

  it('revokes every token when asked', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const token = await server.auth.personalTokens.create(member.id, { name: 'gone', scopes: ['contacts:read'] });
    const result = await browser.submit('/settings/password', '/settings/password', {
      current_password: member.password,
      new_password: 'another fresh passphrase',
      revoke_tokens: 'on',
    });
    expect(result.status).toBe(303);
    expect(result.location).toBe('/settings/password?notice=changed_tokens_revoked');
    expect((await browser.get(result.location as string)).html).toContain(
      'and every token and application access was revoked.',
    );
    expect(await server.auth.provider.AccessToken.find(token.token)).toBeUndefined();
    const [row] = await server.database.db('personal_access_tokens').where({ id: token.id });
    expect(row.revoked_at).toBeInstanceOf(Date);
    expect(await eventsOf(member.id)).toContain('password.changed');
  });
});
