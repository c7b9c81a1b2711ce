import { request as httpRequest } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { launchBrowser } from './support/browser';
import { aMember } from './support/factories';
import { postSignIn } from './support/sign-in-form';

let server: RunningAuthServer;
let browser: Browser;
beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Posts the /login form the way a browser would: first GET for the CSRF cookie and token. */
const signIn = (email: string, password: string) => postSignIn(server.baseUrl, email, password);

const eventsOf = async (memberId: number) =>
  (await server.database.db('audit_events').where({ member_id: memberId }).orderBy('id')).map(
    (row) => row.event as string,
  );

describe('the sign-in page', () => {
  it('tells a member without an account, or without their password, whom to ask (there is no reset by e-mail)', async () => {
    const page = await (await fetch(`${server.baseUrl}/login`)).text();
    expect(page).toContain('id="account-help"');
    expect(page).toContain('Ask the administrator of this site: they add members and set new passwords.');
  });
});

describe('sign-in throttling and the audit log', () => {
  it('locks an account after 5 failed attempts, even for the right password, and says when to retry', async () => {
    const member = await aMember(server.database.db);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await signIn(member.email, 'wrong password')).status).toBe(401);
    }
    const locked = await signIn(member.email.toUpperCase(), member.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(await locked.text()).toContain('Too many failed sign-in attempts');
    expect(await eventsOf(member.id)).toEqual([...Array(5).fill('sign_in.failed'), 'sign_in.throttled']);

    // Another account from the same address is not affected.
    const other = await aMember(server.database.db);
    expect((await signIn(other.email, other.password)).status).toBe(303);
  });

  it('clears the failure count after a successful sign-in', async () => {
    const member = await aMember(server.database.db);
    for (let attempt = 0; attempt < 4; attempt++) await signIn(member.email, 'wrong password');
    expect((await signIn(member.email, member.password)).status).toBe(303);
    for (let attempt = 0; attempt < 4; attempt++) await signIn(member.email, 'wrong password');
    expect((await signIn(member.email, member.password)).status).toBe(303);
  });

  it("records a personal token's creation, first use (once) and revocation, and shows them to the member", async () => {
    const member = await aMember(server.database.db);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.baseUrl}/login?return_to=/settings/tokens`);
    await page.fill('input[name="email"]', member.email);
    await page.fill('input[name="password"]', member.password);
    await Promise.all([page.waitForURL('**/settings/tokens'), page.click('button[type="submit"]')]);
    await page.fill('#token-name', 'nightly');
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('button:has-text("Create token")'),
    ]);
    const token = await page.locator('#revealed-secret').innerText();

    const {
      introspectionClientId: id,
      introspectionClientSecrets: [secret],
    } = server.config.secrets;
    for (let use = 0; use < 3; use++) {
      await fetch(`${server.baseUrl}/oauth/introspect`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ token }),
      });
    }
    await Promise.all([page.waitForURL('**/revoke'), page.click('a[aria-label="Revoke nightly"]')]);
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('main button:has-text("Revoke token")'),
    ]);
    expect(await eventsOf(member.id)).toEqual([
      'sign_in.succeeded',
      'personal_token.created',
      'personal_token.first_used',
      'personal_token.revoked',
    ]);

    await page.goto(`${server.baseUrl}/settings/security`);
    const log = await page.locator('main').innerText();
    expect(log).toContain('Personal access token used for the first time');
    expect(log).toContain('Signed in');
    expect(server.logLines.join('\n')).toContain('"audit":"personal_token.first_used"');
  });
});

describe('the origin the provider answers as', () => {
  /** A GET with exactly these headers (fetch will not send another Host). */
  const getWith = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
      const request = httpRequest(`${server.baseUrl}${path}`, { headers }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, location: response.headers.location, body }),
        );
      });
      request.on('error', reject);
      request.end();
    });

  it('names its own endpoints in the metadata whatever Host or X-Forwarded-Host the request sent', async () => {
    const spoofed: Record<string, string>[] = [
      { host: 'attacker.example' },
      { 'x-forwarded-host': 'attacker.example' },
    ];
    for (const headers of spoofed) {
      const answer = await getWith('/.well-known/oauth-authorization-server', headers);
      expect(answer.status).toBe(200);
      const metadata = JSON.parse(answer.body) as Record<string, unknown>;
      expect(metadata.issuer).toBe(server.baseUrl);
      for (const name of ['authorization_endpoint', 'token_endpoint', 'introspection_endpoint', 'jwks_uri']) {
        expect(String(metadata[name]), name).toMatch(new RegExp(`^${server.baseUrl}/`));
      }
      expect(answer.body).not.toContain('attacker.example');
    }
  });
});
