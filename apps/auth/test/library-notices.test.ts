import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { anApplication } from './support/factories';

// Before the server exists, so that its routing wraps this spy: what reaches the spy is what a
// plain console.warn would have printed.
const plainWarnings = vi.spyOn(console, 'warn');
let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => {
  plainWarnings.mockRestore();
  await server?.stop();
});

describe("oidc-provider's notices", () => {
  it('are lines of the service’s JSON log, not plain lines on stderr (the expected one at debug)', async () => {
    const app = await anApplication(server.database.db);
    // A token request: the service reads its body before the provider, which says so once.
    const response = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'not-a-token',
        client_id: app.client_id,
        client_secret: app.client_secret as string,
      }),
    });
    expect(response.status).toBe(400);

    expect(plainWarnings.mock.calls.flat().join('\n')).not.toContain('oidc-provider');
    const notices = server.logLines
      .map((line) => JSON.parse(line) as { library?: string; level: number; msg: string })
      .filter((line) => line.library === 'oidc-provider');
    expect(notices).toEqual([
      expect.objectContaining({ level: 20, msg: expect.stringMatching(/^already parsed request body detected/) }),
    ]);
  });
});
