import { revokeOidcModels, tokenHash } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, anAccessToken, anApplication } from './support/factories';
import { introspectAsApi } from './support/oauth-client';

/**
 * Each auth process keeps the access tokens it has looked up (provider/access-token-memory.ts).
 * Revocations reach it only through PostgreSQL's announcement; these tests revoke straight on
 * the database, as another replica or the CLI would, and expect the very next introspection,
 * with no waiting, to know.
 */
let server: RunningAuthServer;

beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(() => server.stop());

async function aTokenOfAnApplication() {
  const member = await aMember(server.database.db);
  const app = await anApplication(server.database.db, { owner: member });
  const token = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
  return { member, app, token };
}

/** The PostgreSQL backends of this server's LISTEN connections (PostgreSQL runs on this machine in the tests). */
async function listenerBackends(): Promise<number[]> {
  const { rows } = await server.database.db.raw<{ rows: Array<{ pid: number }> }>(
    "select pid from pg_stat_activity where application_name = 'contacts-listen' and datname = current_database()",
  );
  return rows.map((row) => row.pid);
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** One unlabelled figure of the server's /metrics. */
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `));
  return Number(line?.split(' ').pop());
}

/** Removes a token's row the way nothing in the product does: without announcing it. */
const deleteUnannounced = (token: string) =>
  server.database
    .db('oidc_models')
    .where({ model: 'AccessToken', id_hash: tokenHash(token) })
    .delete();

describe('access tokens kept in memory by the authorization server', () => {
  it('answers a token it has looked up from memory', async () => {
    const { member, token } = await aTokenOfAnApplication();
    expect(await introspectAsApi(server, token)).toMatchObject({ active: true, sub: String(member.id) });

    // Gone from the table without an announcement: only the memory can still answer.
    const hitsBefore = await metric('access_token_memory_hits_total');
    await deleteUnannounced(token);
    expect(await introspectAsApi(server, token)).toMatchObject({ active: true, sub: String(member.id) });
    expect(await metric('access_token_memory_hits_total')).toBe(hitsBefore + 1);
    expect(await metric('access_token_memory_entries')).toBeGreaterThan(0);
  });

  it('answers from memory only once announcements committed before the request have arrived', async () => {
    const { member, app, token } = await aTokenOfAnApplication();
    expect((await introspectAsApi(server, token)).active).toBe(true);

    // The listening backends are paused, so the revocation's announcement is committed but not delivered.
    const listeners = await listenerBackends();
    const paused = listeners.every((pid) => signal(pid, 'SIGSTOP'));
    try {
      expect(paused).toBe(true);
      await revokeOidcModels(server.database.db, { clientId: app.client_id, accountId: String(member.id) });
      let answered = false;
      const answer = introspectAsApi(server, token).finally(() => {
        answered = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false); // waiting for the announcements, not answering from memory
      for (const pid of listeners) signal(pid, 'SIGCONT');
      expect((await answer).active).toBe(false);
    } finally {
      for (const pid of listeners) signal(pid, 'SIGCONT');
    }
  });

  it('trusts nothing it holds once its announcements stopped flowing, and starts afresh', async () => {
    const { token } = await aTokenOfAnApplication();
    expect((await introspectAsApi(server, token)).active).toBe(true);

    // The LISTEN connections of this server's database are cut; a removal made meanwhile cannot be announced to it.
    await server.database.db.raw(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'contacts-listen' and datname = current_database()",
    );
    await deleteUnannounced(token);
    expect((await introspectAsApi(server, token)).active).toBe(false);
  });

  it('says when its listeners are cut and when they are back, so that an operator sees the warning clear', async () => {
    const said = (message: string) =>
      server.logLines.filter((line) => (JSON.parse(line) as { msg?: string }).msg?.startsWith(message)).length;
    const before = {
      tokensBack: said('listening for token revocations'),
      clientsBack: said('listening for application changes'),
    };
    await server.database.db.raw(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'contacts-listen' and datname = current_database()",
    );
    await expect.poll(() => said('token revocation listener down'), { timeout: 5_000 }).toBeGreaterThan(0);
    await expect.poll(() => said('application change listener down'), { timeout: 5_000 }).toBeGreaterThan(0);
    await expect
      .poll(() => said('listening for token revocations'), { timeout: 10_000 })
      .toBeGreaterThan(before.tokensBack);
    await expect
      .poll(() => said('listening for application changes'), { timeout: 10_000 })
      .toBeGreaterThan(before.clientsBack);
  });

  it('remembers no absence: a token not found is looked up again', async () => {
    const { token } = await aTokenOfAnApplication();
    const { db } = server.database;
    const row = await db('oidc_models')
      .where({ model: 'AccessToken', id_hash: tokenHash(token) })
      .first();
    await deleteUnannounced(token);
    expect((await introspectAsApi(server, token)).active).toBe(false);

    await db('oidc_models').insert(row);
    expect((await introspectAsApi(server, token)).active).toBe(true);
  });
});
