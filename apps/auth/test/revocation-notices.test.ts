import { TOKEN_REVOCATION_CHANNEL, type TokenRevocationNotice, tokenHash } from '@contacts/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeAuthorizedApp } from '../src/lib/authorized-apps';
import { deleteClient } from '../src/lib/registered-applications';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, anAccessToken, anApplication } from './support/factories';

let server: RunningAuthServer;
let listener: pg.Client;
const notices: TokenRevocationNotice[] = [];

beforeAll(async () => {
  server = await startAuthServer();
  listener = new pg.Client({ connectionString: server.database.url });
  await listener.connect();
  listener.on('notification', (message) => notices.push(JSON.parse(message.payload ?? '{}') as TokenRevocationNotice));
  await listener.query(`listen ${TOKEN_REVOCATION_CHANNEL}`);
});
afterAll(async () => {
  await listener?.end();
  await server?.stop();
});

/** Resolves once a notice names this token hash (or fails after a second). */
async function announced(hash: string): Promise<boolean> {
  for (let waited = 0; waited < 1000; waited += 20) {
    if (notices.some((notice) => notice.token_hashes.includes(hash))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

const revoke = (token: string, clientId: string, secret: string) =>
  fetch(`${server.baseUrl}/oauth/revoke`, {
    method: 'POST',
    body: new URLSearchParams({ token, client_id: clientId, client_secret: secret }),
  });

describe('revocations are announced to the resource servers by token hash', () => {
  it('announces a revoked personal access token', async () => {
    const member = await aMember(server.database.db);
    const created = await server.auth.personalTokens.create(member.id, { name: 'ci', scopes: ['contacts:read'] });
    await server.auth.personalTokens.revoke(member.id, created.id);
    expect(await announced(tokenHash(created.token))).toBe(true);
    expect(notices.flatMap((notice) => notice.token_hashes)).not.toContain(created.token);
  });

  it('announces tokens of a deleted application and of a withdrawn approval', async () => {
    const member = await aMember(server.database.db);
    const app = await anApplication(server.database.db, { owner: member });
    const token = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
    await deleteClient(server.database.db, member.id, app.client_id);
    expect(await announced(tokenHash(token))).toBe(true);

    const other = await anApplication(server.database.db, { owner: member });
    const second = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: other.client_id });
    await revokeAuthorizedApp(server.database.db, member.id, other.client_id);
    expect(await announced(tokenHash(second))).toBe(true);
  });

  it('announces an access token revoked at the revocation endpoint', async () => {
    const member = await aMember(server.database.db);
    const app = await anApplication(server.database.db, { owner: member });
    const token = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
    expect((await revoke(token, app.client_id, app.client_secret as string)).status).toBe(200);
    expect(await announced(tokenHash(token))).toBe(true);
  });
});
