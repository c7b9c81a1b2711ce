import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeInBrowser, launchBrowser } from './support/browser';
import { type CallbackServer, startCallbackServer } from './support/callback-server';
import { aMember, anApplication } from './support/factories';
import { authorizeUrl, discover, tokenRequest } from './support/oauth-client';

let server: RunningAuthServer;
let browser: Browser;
let callbacks: CallbackServer;
beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
  callbacks = await startCallbackServer();
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await server?.stop();
});

/** Every row of every table, as text: what someone with a copy of the database would have. */
async function dumpDatabase(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    const parts: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query(`select t::text as row from ${pg.escapeIdentifier(table_name)} t`);
      parts.push(...rows.rows.map((row: { row: string }) => `${table_name}: ${row.row}`));
    }
    return parts.join('\n');
  } finally {
    await client.end();
  }
}

describe('nothing usable at rest, nothing secret in the logs', () => {
  it('stores no token, code, secret or password in any table or log line after a full flow', async () => {
    const member = await aMember(server.database.db);
    const app = await anApplication(server.database.db, { redirectUri: callbacks.redirectUri });
    const as = await discover(server.baseUrl);
    const page = await (await browser.newContext()).newPage();
    const { callback } = await authorizeInBrowser(page, authorizeUrl(as, app), app.redirect_uri, member);
    const code = callback?.searchParams.get('code') as string;
    const first = (
      await tokenRequest(as, {
        grant_type: 'authorization_code',
        client_id: app.client_id,
        client_secret: app.client_secret as string,
        redirect_uri: app.redirect_uri,
        code,
      })
    ).body;
    const second = (
      await tokenRequest(as, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token as string,
        client_id: app.client_id,
        client_secret: app.client_secret as string,
      })
    ).body;
    // A wrong password too, so that a failed sign-in's input is also checked.
    await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: app.client_id,
      client_secret: 'guess',
    });
    const personal = await server.auth.personalTokens.create(member.id, { name: 'script', scopes: ['*'] });
    // Another application's consent page left open: its interaction, stored until it expires,
    // records the browser's provider session.
    const other = await anApplication(server.database.db, { redirectUri: callbacks.redirectUri });
    await page.goto(authorizeUrl(as, other));
    await page.waitForURL(/\/interaction\//);
    expect(await server.database.db('oidc_models').where({ model: 'Interaction' }).first()).toBeDefined();
    const sessionCookies = (await page.context().cookies()).filter(
      (cookie) => cookie.name.startsWith('_session') || cookie.name === 'member_session',
    );

    const secrets: Record<string, string> = {
      'authorization code': code,
      'access token': first.access_token as string,
      'refresh token': first.refresh_token as string,
      'rotated access token': second.access_token as string,
      'rotated refresh token': second.refresh_token as string,
      'personal access token': personal.token,
      'client secret': app.client_secret as string,
      password: member.password,
      ...Object.fromEntries(
        server.config.secrets.introspectionClientSecrets.map((secret, n) => [
          `introspection client secret ${n}`,
          secret,
        ]),
      ),
      ...Object.fromEntries(sessionCookies.map((cookie) => [`cookie ${cookie.name}`, cookie.value])),
    };
    expect(sessionCookies.length).toBeGreaterThan(0);

    const dump = await dumpDatabase(server.database.url);
    const logs = server.logLines.join('\n');
    expect(dump).toContain('oidc_models'); // the dump really has the token tables
    for (const [what, value] of Object.entries(secrets)) {
      expect(value.length, what).toBeGreaterThan(7);
      expect(dump.includes(value), `${what} found in the database`).toBe(false);
      expect(logs.includes(value), `${what} found in the logs`).toBe(false);
    }
  });
});
