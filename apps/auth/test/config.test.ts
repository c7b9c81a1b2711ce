import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, createLogger, generateSecrets, secretsEnvironment } from '@contacts/config';
import { createTestDatabase, describeDatabaseRefusalsAtStart } from '@contacts/db/testing';
import type { JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../src/config';
import { createAuthServer } from '../src/index';

const APP_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the auth configuration', () => {
  it.each([
    ['DB_POOL_MAX', 'ten', 'DB_POOL_MAX must be an integer >= 1, got "ten"'],
    ['SHUTDOWN_TIMEOUT', '5s', 'SHUTDOWN_TIMEOUT must be an integer >= 0, got "5s"'],
    ['MIGRATE_ON_START', 'yes', 'MIGRATE_ON_START must be true or false, got "yes"'],
    ['ACCESS_TOKEN_TTL', '1.5', 'ACCESS_TOKEN_TTL must be an integer >= 1, got "1.5"'],
    ['TOKEN_RATE_LIMIT', '-1', 'TOKEN_RATE_LIMIT must be an integer >= 0, got "-1"'],
    ['PUBLIC_URL', 'localhost', 'PUBLIC_URL must be an absolute http or https URL, got "localhost"'],
    // Values that started and then failed: a stack trace at start, or 500s and dead links later.
    ['PUBLIC_URL', 'http://localhost:4227/?x=1', 'PUBLIC_URL must be an origin only'],
    ['PUBLIC_URL', 'http://localhost:4227#x', 'PUBLIC_URL must be an origin only'],
    ['PUBLIC_URL', 'http://localhost:4219/base', 'PUBLIC_URL must be an origin only'],
    [
      'PUBLIC_URL',
      'http://u:p@localhost:4220',
      'PUBLIC_URL must not contain a user name or password, got "http://…@localhost:4220"',
    ],
    ['GRANT_TTL', '99999999999999', 'GRANT_TTL must be an integer <= 316224000, got "99999999999999"'],
    ['ACCESS_TOKEN_TTL', '99999999999999', 'ACCESS_TOKEN_TTL must be an integer <= 316224000'],
    ['REFRESH_TOKEN_TTL', '99999999999999', 'REFRESH_TOKEN_TTL must be an integer <= 316224000'],
    [
      'REFRESH_TOKEN_REUSE_GRACE_SECONDS',
      '99999999999999',
      'REFRESH_TOKEN_REUSE_GRACE_SECONDS must be an integer <= 60',
    ],
    ['SHUTDOWN_TIMEOUT', '99999999999', 'SHUTDOWN_TIMEOUT must be an integer <= 2147483'],
    ['TOKEN_RATE_LIMIT_WINDOW', '99999999999999', 'TOKEN_RATE_LIMIT_WINDOW must be an integer <= 316224000'],
    ['DB_POOL_MAX', '100000', 'DB_POOL_MAX must be an integer <= 1000'],
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

describe('signing keys oidc-provider refuses', () => {
  it('are one ConfigError line, without the key (its own error carries the private key as its cause)', async () => {
    const secrets = await generateSecrets();
    const key = secrets.jwks.keys[0] as JWK & { d: string };
    // Past the JWKS check of config.ts (as a check it lacks would be): the same key twice.
    const jwks = { keys: [key, key] };
    const database = await createTestDatabase();
    try {
      const creating = createAuthServer({
        db: database.db,
        config: {
          issuer: 'http://localhost:3001',
          port: 3001,
          secrets: { ...secrets, jwks },
          secureCookies: false,
          accessTokenTtl: 3600,
          refreshTokenTtl: 3600,
          grantTtl: 3600,
        },
        logger: createLogger('auth', { LOG_LEVEL: 'silent' }),
      });
      const error = await creating.then(
        () => undefined,
        (refusal: unknown) => refusal,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(
        /^oidc-provider refused its configuration \(check JWKS\): .*duplicate "kid"/,
      );
      expect((error as Error).cause).toBeUndefined();
      expect(JSON.stringify(error)).not.toContain(key.d);
    } finally {
      await database.drop();
    }
  });
});

describeDatabaseRefusalsAtStart({
  service: 'auth',
  appDir: APP_DIR,
  productionSecrets: async () => secretsEnvironment(await generateSecrets()),
});
