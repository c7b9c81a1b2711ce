import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AuthServer, createAuthServer } from '@contacts/auth';
import { createLogger, generateSecrets } from '@contacts/config';
import {
  createDatabase,
  type Database,
  type EmbeddedDatabase,
  insertMember,
  migrateLatest,
  startEmbeddedDatabase,
} from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContactsApi, createContactsApi } from '../src/index';
import { testApiConfig } from './support/api-config';
import { waitFor } from './support/servers';

/**
 * Faults, on a PostgreSQL of this file's own (an embedded one in a temporary folder, on its own
 * port; the shared test server is never stopped): PostgreSQL stopped in the middle of a load,
 * and the authorization server killed and restarted.
 */
const PG_PORT = 61_000 + Math.floor(Math.random() * 2_000);
/** Longest acceptable answer while PostgreSQL is down (the pool's acquire timeout is 10 s). */
const BOUND_MS = 12_000;

let dataDir: string;
let pg: EmbeddedDatabase;
let db: Database;
let auth: AuthServer;
let api: ContactsApi;
let authServer: Server;
let apiServer: Server;
let authUrl: string;
let apiUrl: string;
let authPort: number;

const logger = createLogger('faults', { NODE_ENV: 'test' });
const startPostgres = () => startEmbeddedDatabase({ dataDir, port: PG_PORT, mode: 'own' });
const listen = (server: Server, port = 0) =>
  new Promise<number>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
const close = async (server: Server) => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
};

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-faults-pg-'));
  // mkdtemp makes it 0700; as root, `postgres` could not reach it and the data would be placed
  // under /var/tmp/contacts-postgres, outside what this test removes.
  await chmod(dataDir, 0o755);
  pg = await startPostgres();
  db = createDatabase(pg.url, { poolMax: 10, applicationName: 'faults-test' });
  await migrateLatest(db);
  const secrets = await generateSecrets();
  authServer = createServer();
  authPort = await listen(authServer);
  authUrl = `http://127.0.0.1:${authPort}`;
  auth = await createAuthServer({
    db,
    logger,
    config: {
      issuer: authUrl,
      port: authPort,
      secrets,
      accessTokenTtl: 3600,
      refreshTokenTtl: 3600,
      grantTtl: 3600,
      secureCookies: false,
    },
  });
  authServer.on('request', auth.app.callback());
  apiServer = createServer();
  apiUrl = `http://127.0.0.1:${await listen(apiServer)}`;
  api = await createContactsApi({
    db,
    logger,
    config: await testApiConfig({ publicUrl: apiUrl, authUrl }, secrets),
  });
  apiServer.on('request', api.app.callback());
  await waitFor(() => api.revocations.listening, 10_000);
}, 120_000);

afterAll(async () => {
  if (apiServer) await close(apiServer);
  await api?.close();
  if (authServer?.listening) await close(authServer);
  await auth?.close();
  await db?.destroy();
  await pg?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

async function aToken(): Promise<string> {
  const member = await insertMember(db, {
    email: `fault-${Math.random().toString(36).slice(2)}@example.test`,
    name: 'Fault',
    password_hash: 'x',
  });
  return (await auth.personalTokens.create(member.id, { name: 'faults', scopes: ['*'] })).token;
}

interface Outcome {
  status: number;
  elapsedMs: number;
  body: string;
  at: number;
}

async function timed(url: string, init: RequestInit): Promise<Outcome> {
  const started = Date.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    const body = await response.text();
    return { status: response.status, elapsedMs: Date.now() - started, body, at: started };
  } catch (error) {
    return { status: 0, elapsedMs: Date.now() - started, body: String(error), at: started };
  }
}

describe('PostgreSQL stopped in the middle of a load', () => {
  it('answers 503 with a clear error in bounded time, recovers by itself, and keeps every acknowledged write', async () => {
    const token = await aToken();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const acknowledged: Array<{ id: number; name: string }> = [];
    const outcomes: Array<Outcome & { kind: string }> = [];
    let sequence = 0;
    let running = true;
    let postgresBackAt = Number.POSITIVE_INFINITY;
    let firstWriteAfterBack: number | undefined;

    const writer = async () => {
      while (running) {
        sequence += 1;
        const name = `load ${sequence}`;
        const outcome = await timed(`${apiUrl}/v4/contacts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name }),
        });
        outcomes.push({ ...outcome, kind: 'api write' });
        if (outcome.status === 201) {
          acknowledged.push({ id: (JSON.parse(outcome.body) as { data: { id: number } }).data.id, name });
          if (outcome.at >= postgresBackAt) firstWriteAfterBack ??= Date.now();
        }
        if (outcome.status !== 201) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const reader = async () => {
      while (running) {
        outcomes.push({ ...(await timed(`${apiUrl}/v3/contacts/0/5`, { headers })), kind: 'api read' });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const tokenClient = async () => {
      while (running) {
        const outcome = await timed(`${authUrl}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' }),
        });
        outcomes.push({ ...outcome, kind: 'token endpoint' });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const workers = [writer(), writer(), writer(), writer(), reader(), tokenClient()];

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const ackedBeforeOutage = acknowledged.length;
    await pg.stop();
    const stoppedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const restartedAt = Date.now();
    pg = await startPostgres();
    postgresBackAt = Date.now();

    // Recovery by itself: a write succeeds again, with no restart of either service.
    await waitFor(() => firstWriteAfterBack !== undefined, 30_000).catch(() => undefined);
    const recovered = firstWriteAfterBack === undefined ? undefined : firstWriteAfterBack - postgresBackAt;
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all(workers);

    expect(recovered).toBeGreaterThanOrEqual(0);
    expect(acknowledged.length).toBeGreaterThan(ackedBeforeOutage);
    const duringOutage = outcomes.filter((o) => o.at >= stoppedAt + 500 && o.at + o.elapsedMs <= restartedAt);
    expect(duringOutage.length).toBeGreaterThan(5);
    for (const outcome of outcomes) {
      expect(outcome.status, `${outcome.kind}: ${outcome.body}`).not.toBe(0);
      expect(outcome.status, `${outcome.kind}: ${outcome.body}`).not.toBe(500);
      expect(outcome.elapsedMs, outcome.kind).toBeLessThan(BOUND_MS);
      expect(outcome.body).not.toMatch(/ at |node_modules|\.ts:\d+/);
    }
    for (const outcome of duringOutage) {
      expect(outcome.status, `${outcome.kind}: ${outcome.body}`).toBe(503);
      if (outcome.kind === 'token endpoint') {
        expect(JSON.parse(outcome.body)).toEqual({
          error: 'temporarily_unavailable',
          error_description: expect.any(String),
        });
      } else if (outcome.kind === 'api read') {
        expect(JSON.parse(outcome.body)).toEqual({ message: expect.any(String) });
      } else {
        const { error } = JSON.parse(outcome.body) as { error: { code: string; message: string } };
        expect(['service_unavailable', 'authorization_server_unavailable']).toContain(error.code);
      }
    }

    // Every write acknowledged with 201 is in the database, exactly once.
    await waitFor(() => api.revocations.listening, 20_000);
    const stored = await db('contacts').whereIn(
      'id',
      acknowledged.map((entry) => entry.id),
    );
    expect(stored.length).toBe(acknowledged.length);
    for (const entry of acknowledged) expect(stored.find((row) => row.id === entry.id)?.name).toBe(entry.name);

    const maxOutageMs = Math.max(...duringOutage.map((o) => o.elapsedMs));
    console.log(
      `faults: ${outcomes.length} requests (${outcomes.filter((o) => o.kind === 'api write').length} writes), ` +
        `${acknowledged.length} writes acknowledged (${ackedBeforeOutage} before the outage) and all ${stored.length} found in the database; ` +
        `${duringOutage.length} answers during the ${restartedAt - stoppedAt} ms outage, all 503, slowest ${maxOutageMs} ms; ` +
        `first successful write ${recovered} ms after PostgreSQL was back (${postgresBackAt - restartedAt} ms to start it)`,
    );
  }, 120_000);
});

describe('authorization server killed and restarted', () => {
  it('serves cached tokens and 503 for unknown ones while it is down, and everything works again after its restart', async () => {
    const cached = await aToken();
    const unknown = await aToken();
    const get = (token: string) => fetch(`${apiUrl}/v4/contacts`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get(cached)).status).toBe(200);

    await close(authServer);
    expect((await get(cached)).status).toBe(200);
    const refused = await get(unknown);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('authorization_server_unavailable');

    // A new process on the same address: nothing to restart on the API's side.
    authServer = createServer(auth.app.callback());
    await listen(authServer, authPort);
    expect((await get(unknown)).status).toBe(200);
    expect((await get(cached)).status).toBe(200);
    const revokedLater = await aToken();
    expect((await get(revokedLater)).status).toBe(200);
  });
});
