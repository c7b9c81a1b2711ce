import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSettingsFrom } from '../src/config';

/** `pnpm start`'s settings: one process serves both services, and the API reaches the auth server in it. */
describe('pnpm start: where the API reaches the authorization server', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-platform-settings-'));
  });
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));
  const settings = (env: NodeJS.ProcessEnv) =>
    platformSettingsFrom({ DATA_DIR: dataDir, PORT: '4321', LOG_LEVEL: 'silent', ...env });

  it.each([
    [undefined, 'http://127.0.0.1:4321'],
    ['0.0.0.0', 'http://127.0.0.1:4321'],
    ['::', 'http://127.0.0.1:4321'],
    ['127.0.0.1', 'http://127.0.0.1:4321'],
    // Listening on one address only, the process is not at 127.0.0.1: every token was a 503.
    ['::1', 'http://[::1]:4321'],
    ['192.0.2.2', 'http://192.0.2.2:4321'],
  ])('with LISTEN_ADDRESS=%s, at %s', async (listenAddress, expected) => {
    const { api } = await settings(listenAddress === undefined ? {} : { LISTEN_ADDRESS: listenAddress });
    expect(api.authInternalUrl).toBe(expected);
  });

  it('at its own address even when AUTH_INTERNAL_URL is set (a service .env left in the environment)', async () => {
    const { api } = await settings({ AUTH_INTERNAL_URL: 'http://10.1.1.1:9' });
    expect(api.authInternalUrl).toBe('http://127.0.0.1:4321');
  });
});
