import { createLogger } from '@contacts/config';
import { createDatabase } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthServer, createAuthServer, loadAuthConfig } from '../src/index';

/** The authorization server on a database that does not answer (a port nothing listens on). */
let auth: AuthServer;
let baseUrl: string;
let stop: () => Promise<void>;
const logLines: string[] = [];
beforeAll(async () => {
  const config = await loadAuthConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/contacts-auth-test' }, { port: 0 });
  const db = createDatabase('postgres://postgres@127.0.0.1:1/unreachable', { poolMax: 2 });
  const logger = createLogger('auth', { LOG_LEVEL: 'debug' }, { write: (line: string) => logLines.push(line) });
  auth = await createAuthServer({ db, config, logger });
  const server = auth.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  stop = async () => {
    server.close();
    await auth.close();
    await db.destroy();
  };
});
afterAll(async () => stop?.());

describe('the database out of reach', () => {
  it('answers a token request 503 temporarily_unavailable, logged as one warning without a stack', async () => {
    const response = await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: 'c',
        client_secret: 's',
      }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    const lines = logLines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { stack?: string } });
    const outage = lines.filter((line) => line.msg === 'database unavailable');
    expect(outage.length).toBeGreaterThan(0);
    for (const line of outage) {
      expect(line.level).toBe(40);
      expect(line.err?.stack ?? '').toBe('');
    }
    // No error line (a stack per request) for what is an outage.
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
