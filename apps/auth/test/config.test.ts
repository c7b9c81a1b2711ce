import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@contacts/config';
import { describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../src/config';

const APP_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the auth configuration', () => {
  it.each([
    ['DB_POOL_MAX', 'ten', 'DB_POOL_MAX must be an integer >= 1, got "ten"'],
    ['SHUTDOWN_TIMEOUT', '5s', 'SHUTDOWN_TIMEOUT must be an integer >= 0, got "5s"'],
    ['MIGRATE_ON_START', 'yes', 'MIGRATE_ON_START must be true or false, got "yes"'],
    ['ACCESS_TOKEN_TTL', '1.5', 'ACCESS_TOKEN_TTL must be an integer >= 1, got "1.5"'],
    ['TOKEN_RATE_LIMIT', '-1', 'TOKEN_RATE_LIMIT must be an integer >= 0, got "-1"'],
    ['PUBLIC_URL', 'localhost', 'PUBLIC_URL must be an absolute http or https URL, got "localhost"'],
  ])('refuses a malformed %s, naming it and the form it expects', async (name, value, message) => {
    const loading = loadAuthConfig({ [name]: value }, { port: 3001 });
    await expect(loading).rejects.toThrow(ConfigError);
    await expect(loading).rejects.toThrow(message);
  });

  it('stops the process with that one line and exit code 1, never a stack trace', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: APP_DIR,
      env: { PATH: process.env.PATH, PORT: 'abc', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('auth cannot start: PORT must be an integer >= 1, got "abc"\n');
  });
});
