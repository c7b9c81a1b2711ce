import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSettingsFrom } from '../src/database-settings';
import { ConfigError, EnvironmentError, portFrom, publicUrlFrom } from '../src/env';
import { janitorSettingsFrom } from '../src/janitor-settings';
import { createLogger, logLevelFrom } from '../src/logger';
import { rateLimitFrom } from '../src/rate-limit';
import { generateSecrets, loadSharedSecrets } from '../src/secrets';
import { ensurePortFree, serve } from '../src/serve';
import { serviceRuntimeFrom } from '../src/service-runtime';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-settings-'));
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

/** The message of the ConfigError that `read` throws (fails the test when it throws nothing, or something else). */
async function refusal(read: () => unknown): Promise<string> {
  try {
    await read();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('settings read from the environment', () => {
  it.each([
    [{ PORT: '70000' }, 'PORT must be an integer <= 65535, got "70000"'],
    [{ PORT: '0' }, 'PORT must be an integer >= 1, got "0"'],
  ])('refuses a port out of range: %j', async (env, message) => {
    expect(await refusal(() => portFrom(env, 'PORT', 3000))).toBe(message);
  });

  it.each([
    [{ EMBEDDED_PG_PORT: 'abc' }, 'EMBEDDED_PG_PORT must be an integer >= 1, got "abc"'],
    [{ EMBEDDED_PG_PORT: '70000' }, 'EMBEDDED_PG_PORT must be an integer <= 65535, got "70000"'],
    [{ DB_POOL_MAX: 'ten' }, 'DB_POOL_MAX must be an integer >= 1, got "ten"'],
    [
      { DATABASE_URL: 'mysql://db/contacts' },
      'DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database), got "mysql://db/contacts"',
    ],
    [
      { DATABASE_URL: 'postgres//contacts:s3cret@db/contacts' },
      'DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database), got "postgres//contacts:***@db/contacts"',
    ],
    [
      // A password straight from `openssl rand -base64` (it holds "/"): the cause named, nothing of it shown.
      { DATABASE_URL: 'postgres://contacts:Sup3r/Secr:et@db:5432/contacts' },
      'DATABASE_URL is not a valid URL (postgres://user:password@host:5432/database), got "postgres://contacts:***@db:5432/contacts": ' +
        'a user name or password holding / : @ # ? or % must be percent-encoded (/ as %2F, : as %3A, @ as %40, # as %23, ? as %3F, % as %25)',
    ],
    [
      // Not a parse failure of the password: the port is what is wrong.
      { DATABASE_URL: 'postgres://contacts:s3cret@db:99999/contacts' },
      'DATABASE_URL must name a port from 1 to 65535 (postgres://user:password@host:5432/database), got "postgres://contacts:***@db:99999/contacts"',
    ],
    [
      { DATABASE_URL: 'postgresql://[::1]:0/contacts' },
      'DATABASE_URL must name a port from 1 to 65535 (postgres://user:password@host:5432/database), got "postgresql://[::1]:0/contacts"',
    ],
    [
      // Copy-pasted with a space: URL parsing trims it, the driver does not.
      { DATABASE_URL: ' postgres://contacts:s3cret@db/contacts' },
      'DATABASE_URL has a space at its start or end (postgres://user:password@host:5432/database), got " postgres://contacts:***@db/contacts": remove it (a copy-paste left it there)',
    ],
    [
      { DATABASE_URL: 'postgres://db/contacts ' },
      'DATABASE_URL has a space at its start or end (postgres://user:password@host:5432/database), got "postgres://db/contacts ": remove it (a copy-paste left it there)',
    ],
    [
      { DATABASE_URL: 'postgres:/contacts' },
      'DATABASE_URL must name its server after postgres:// (postgres://user:password@host:5432/database), got "postgres:/contacts"',
    ],
    [
      { DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:5432/' },
      'DATABASE_URL names no database (postgres://user:password@host:5432/database), got "postgres://postgres:***@127.0.0.1:5432/": ' +
        "add the database's name after the last /; without it PostgreSQL would use the database named as the user",
    ],
    [
      { DATABASE_URL: 'postgresql://db?sslmode=require' },
      'DATABASE_URL names no database (postgres://user:password@host:5432/database), got "postgresql://db?sslmode=require": ' +
        "add the database's name after the last /; without it PostgreSQL would use the database named as the user",
    ],
    [
      { DATABASE_URL: 'postgres://db/contacts?sslmode=disable&sslmode=bogus' },
      'DATABASE_URL names sslmode more than once: give each parameter once',
    ],
    [
      { DATABASE_URL: 'postgres://db/contacts?sslmode=bogus' },
      'DATABASE_URL\'s sslmode must be one of disable, prefer, require, verify-ca, verify-full, no-verify, got "bogus" (any other value turned TLS on, unnoticed)',
    ],
    [{ NODE_ENV: 'prod' }, 'NODE_ENV must be one of production, development, test (or unset: development), got "prod"'],
    [
      { NODE_ENV: 'production' },
      'DATABASE_URL must be set in production (postgres://user:password@host:5432/database); the embedded PostgreSQL is for development',
    ],
  ])('refuses a malformed database setting without showing a password: %j', async (env, message) => {
    expect(await refusal(() => databaseSettingsFrom(env))).toBe(message);
  });

  it('reads the database settings, DATABASE_URL unset meaning the embedded database', () => {
    expect(databaseSettingsFrom({})).toEqual({ url: undefined, embeddedPort: 54329, poolMax: 10 });
    // PostgreSQL's local socket: no host between the slashes.
    expect(databaseSettingsFrom({ DATABASE_URL: 'postgres:///contacts?host=/var/run/postgresql' }).url).toBe(
      'postgres:///contacts?host=/var/run/postgresql',
    );
    expect(
      databaseSettingsFrom({ DATABASE_URL: 'postgresql://u:p@db:5433/c', EMBEDDED_PG_PORT: '6000', DB_POOL_MAX: '3' }),
    ).toEqual({ url: 'postgresql://u:p@db:5433/c', embeddedPort: 6000, poolMax: 3 });
    // A password may hold what looks like a port: only the authority after the last @ names one.
    expect(databaseSettingsFrom({ DATABASE_URL: 'postgres://u:p%3A99999@[::1]:5432/c' }).url).toBe(
      'postgres://u:p%3A99999@[::1]:5432/c',
    );
  });

  it.each([
    [{ JANITOR_INTERVAL: '3000000' }, 'JANITOR_INTERVAL must be an integer <= 2147483, got "3000000"'],
    [{ AUDIT_RETENTION_DAYS: 'abc' }, 'AUDIT_RETENTION_DAYS must be an integer >= 1, got "abc"'],
  ])('refuses a janitor setting out of range: %j', async (env, message) => {
    expect(await refusal(() => janitorSettingsFrom(env))).toBe(message);
  });

  it.each([
    [{ MIGRATE_ON_START: 'yes' }, 'MIGRATE_ON_START must be true or false, got "yes"'],
    [{ SHUTDOWN_TIMEOUT: 'abc' }, 'SHUTDOWN_TIMEOUT must be an integer >= 0, got "abc"'],
    // Number() would read these as 1000, 16 and 12: a typo, or a notation nobody means for seconds.
    [{ SHUTDOWN_TIMEOUT: '1e3' }, 'SHUTDOWN_TIMEOUT must be an integer >= 0, got "1e3"'],
    [{ SHUTDOWN_TIMEOUT: '0x10' }, 'SHUTDOWN_TIMEOUT must be an integer >= 0, got "0x10"'],
    [{ SHUTDOWN_TIMEOUT: '12.0' }, 'SHUTDOWN_TIMEOUT must be an integer >= 0, got "12.0"'],
  ])('refuses a malformed runtime setting: %j', async (env, message) => {
    expect(await refusal(() => serviceRuntimeFrom(env))).toBe(message);
  });

  it.each([
    [{ API_RATE_LIMIT: 'ten' }, 'API_RATE_LIMIT must be an integer >= 0, got "ten"'],
    [{ API_RATE_LIMIT_WINDOW: '0' }, 'API_RATE_LIMIT_WINDOW must be an integer >= 1, got "0"'],
    [{ REDIS_URL: 'not-a-url' }, 'REDIS_URL must be a redis:// or rediss:// URL (redis://host:6379), got "not-a-url"'],
    // Read even while the limit is off: a typo is reported when it is made, not when the limit is switched on.
    [
      { API_RATE_LIMIT: '0', REDIS_URL: 'http://:pw@cache:6379' },
      'REDIS_URL must be a redis:// or rediss:// URL (redis://host:6379), got "http://:***@cache:6379"',
    ],
  ])('refuses a malformed rate limit setting: %j', async (env, message) => {
    expect(await refusal(() => rateLimitFrom(env, 'API_RATE_LIMIT', 1200))).toBe(message);
  });

  it('accepts the documented log levels only, naming them', async () => {
    expect(logLevelFrom({ LOG_LEVEL: 'debug' })).toBe('debug');
    expect(logLevelFrom({})).toBe('info');
    expect(logLevelFrom({ NODE_ENV: 'test' })).toBe('silent');
    expect(await refusal(() => logLevelFrom({ LOG_LEVEL: 'verbose' }))).toBe(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"',
    );
  });
});

describe('shared secrets', () => {
  const strong = async () => {
    const secrets = await generateSecrets();
    return {
      NODE_ENV: 'production',
      COOKIE_KEYS: secrets.cookieKeys.join(','),
      JWKS: JSON.stringify(secrets.jwks),
      INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
      INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecrets.join(','),
    };
  };

  it('accepts generated secrets (what .env.example asks for: openssl rand -base64 32)', async () => {
    const env = await strong();
    const secrets = await loadSharedSecrets({ ...env, COOKIE_KEYS: `${'a'.repeat(44)}, ${'b'.repeat(32)}` }, dataDir);
    expect(secrets.cookieKeys).toEqual(['a'.repeat(44), 'b'.repeat(32)]);
  });

  it("takes a rotation's two introspection secrets, the one to present first (README: Secrets and their rotation)", async () => {
    const env = { ...(await strong()), INTROSPECTION_CLIENT_SECRET: `${'n'.repeat(43)}, ${'o'.repeat(43)}` };
    expect((await loadSharedSecrets(env, dataDir)).introspectionClientSecrets).toEqual([
      'n'.repeat(43),
      'o'.repeat(43),
    ]);
  });

  it('reads the development secrets a release before the list kept (one introspectionClientSecret)', async () => {
    const kept = path.join(dataDir, 'kept-by-an-older-release');
    await mkdir(kept);
    const { introspectionClientSecrets, ...others } = await generateSecrets();
    const older = { ...others, introspectionClientSecret: introspectionClientSecrets[0] };
    await writeFile(path.join(kept, 'secrets.json'), JSON.stringify(older));
    const secrets = await loadSharedSecrets({}, kept);
    expect(secrets.introspectionClientSecrets).toEqual(introspectionClientSecrets);
    expect(secrets.cookieKeys).toEqual(others.cookieKeys);
  });

  it.each([
    [
      { COOKIE_KEYS: 'x' },
      'COOKIE_KEYS must be at least 32 characters (it has 1); generate one with `openssl rand -base64 32`',
    ],
    [
      { COOKIE_KEYS: `${'a'.repeat(40)},short` },
      'COOKIE_KEYS: each comma-separated value must be at least 32 characters (one has 5); generate one with `openssl rand -base64 32`',
    ],
    [
      { INTROSPECTION_CLIENT_SECRET: `${'a'.repeat(43)},${'b'.repeat(31)}` },
      'INTROSPECTION_CLIENT_SECRET: each comma-separated value must be at least 32 characters (one has 31); generate one with `openssl rand -base64 32`',
    ],
    [
      { INTROSPECTION_CLIENT_SECRET: 'b' },
      'INTROSPECTION_CLIENT_SECRET must be at least 32 characters (it has 1); generate one with `openssl rand -base64 32`',
    ],
    [
      { JWKS: 'notjson' },
      'JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): it is not JSON',
    ],
    [
      { JWKS: '{"keys":[]}' },
      'JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): it has no keys',
    ],
    [
      { JWKS: '{"keys":[{"kty":"EC","crv":"P-256","x":"x","y":"y"}]}' },
      'JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): key 1 is not a private key',
    ],
    // Both passed the shape check and then stopped oidc-provider with a stack trace.
    [
      { JWKS: '{"keys":[{"kty":"EC","d":"abc"}]}' },
      'JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): key 1 is not a valid EC private key (check "crv", "x", "y", "d", …)',
    ],
    [
      { JWKS: '{"keys":[{"kty":"oct","k":"c2VjcmV0","d":"x"}]}' },
      'JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): key 1 is of type "oct"; signing keys are EC, OKP, RSA',
    ],
  ])('refuses a weak or malformed secret, naming it and never showing it: %j', async (override, message) => {
    expect(await refusal(async () => loadSharedSecrets({ ...(await strong()), ...override }, dataDir))).toBe(message);
  });

  describe('a JWKS oidc-provider would refuse (it said so with a stack trace printing the private key)', () => {
    const privateJwk = (type: 'ec' | 'ed25519' | 'rsa', options: object = {}) =>
      generateKeyPairSync(type as 'ec', options as { namedCurve: string }).privateKey.export({ format: 'jwk' });
    const p256 = () => ({ ...privateJwk('ec', { namedCurve: 'P-256' }), alg: 'ES256', use: 'sig' });
    const withKeys = (...keys: object[]) => ({ JWKS: JSON.stringify({ keys }) });
    const prefix = 'JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): ';

    it.each([
      [
        'two keys of one kid',
        () => withKeys({ ...p256(), kid: 'same' }, { ...p256(), kid: 'same' }),
        'key 2 has the "kid" of an earlier key ("same"); each key needs its own',
      ],
      [
        'one key twice without a kid',
        () => {
          const key = privateJwk('ed25519');
          return withKeys(key, key);
        },
        'key 2 is an earlier key again',
      ],
      [
        'an EC key that says RS256',
        () => withKeys({ ...p256(), alg: 'RS256' }),
        'key 1 says "alg": "RS256"; a key of its kind signs with ES256',
      ],
      [
        'a P-384 key that says ES256',
        () => withKeys({ ...privateJwk('ec', { namedCurve: 'P-384' }), alg: 'ES256' }),
        'key 1 says "alg": "ES256"; a key of its kind signs with ES384',
      ],
      [
        'an encryption key',
        () => withKeys({ ...p256(), use: 'enc' }),
        'key 1 is for "use": "enc"; these keys sign ("sig")',
      ],
      [
        'a key whose "d" is another key\'s',
        () => withKeys({ ...p256(), d: p256().d }),
        'key 1\'s public members (x, y) do not belong to its "d"',
      ],
      [
        'an RSA key of 1024 bits',
        () => withKeys(privateJwk('rsa', { modulusLength: 1024 })),
        'key 1 is an RSA key of 1024 bits; at least 2048 are needed',
      ],
    ])('refuses %s in one line, without the key', async (_case, jwks, why) => {
      const env = { ...(await strong()), ...jwks() };
      const message = await refusal(async () => loadSharedSecrets(env, dataDir));
      expect(message).toBe(`${prefix}${why}`);
      for (const key of (JSON.parse(env.JWKS) as { keys: Array<{ d: string }> }).keys)
        expect(message).not.toContain(key.d);
    });

    it('accepts keys of every kind it signs with: P-256, Ed25519, RSA 2048, each with its own kid', async () => {
      const keys = [
        { ...p256(), kid: 'a' },
        { ...privateJwk('ed25519'), kid: 'b' },
        { ...privateJwk('rsa', { modulusLength: 2048 }), alg: 'PS256', kid: 'c' },
      ];
      const secrets = await loadSharedSecrets({ ...(await strong()), ...withKeys(...keys) }, dataDir);
      expect(secrets.jwks.keys.map((key) => key.kid)).toEqual(['a', 'b', 'c']);
    });
  });

  it('refuses to start in production without the secrets a service needs', async () => {
    expect(await refusal(() => loadSharedSecrets({ NODE_ENV: 'production' }, dataDir))).toBe(
      'COOKIE_KEYS, JWKS, INTROSPECTION_CLIENT_ID, INTROSPECTION_CLIENT_SECRET must be set in production',
    );
  });

  it('names DATA_DIR when the development secrets cannot be kept there, and the secrets as a way out only with DATABASE_URL', async () => {
    const file = path.join(dataDir, 'not-a-folder');
    await writeFile(file, '');
    const problem =
      `the development secrets could not be kept in ${path.join(file, 'data', 'secrets.json')}: ` +
      `${path.join(file, 'data')} is a file, or lies under one, not a folder (ENOTDIR). Choose a writable folder with DATA_DIR`;
    const withDatabase = loadSharedSecrets({ DATABASE_URL: 'postgres://db/contacts' }, path.join(file, 'data'));
    await expect(withDatabase).rejects.toThrow(EnvironmentError);
    await expect(withDatabase).rejects.toThrow(
      `${problem}, or set COOKIE_KEYS, JWKS, INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET.`,
    );
    // With the embedded database, DATA_DIR is needed whatever secrets are set.
    await expect(loadSharedSecrets({}, path.join(file, 'data'))).rejects.toThrow(
      `${problem} (the embedded database keeps its data there too), or set DATABASE_URL to a PostgreSQL server of your own.`,
    );
  });
});

describe('the address clients use (PUBLIC_URL)', () => {
  it('defaults to the service itself in development, and is required in production (one issuer for every replica)', async () => {
    expect(publicUrlFrom({}, 3001)).toBe('http://localhost:3001');
    expect(publicUrlFrom({ NODE_ENV: 'production', PUBLIC_URL: 'https://contacts.example.com' }, 3001)).toBe(
      'https://contacts.example.com',
    );
    expect(await refusal(() => publicUrlFrom({ NODE_ENV: 'production' }, 3001))).toMatch(
      /^PUBLIC_URL must be set in production: the address clients use/,
    );
  });
});

describe('the address a service listens on (LISTEN_ADDRESS)', () => {
  it('is every interface unless set, and an IP address when set', async () => {
    expect(serviceRuntimeFrom({}).listenAddress).toBeUndefined();
    expect(serviceRuntimeFrom({ LISTEN_ADDRESS: '127.0.0.1' }).listenAddress).toBe('127.0.0.1');
    expect(serviceRuntimeFrom({ LISTEN_ADDRESS: '::1' }).listenAddress).toBe('::1');
    expect(await refusal(() => serviceRuntimeFrom({ LISTEN_ADDRESS: 'localhost' }))).toBe(
      'LISTEN_ADDRESS must be an IP address (127.0.0.1, ::1, 0.0.0.0, …), got "localhost"',
    );
  });

  it('is the only one the service listens on', async () => {
    const server = await serve({
      name: 'probe',
      port: 0,
      host: '127.0.0.1',
      handler: (_req, res) => res.end(),
      logger: createLogger('probe', { LOG_LEVEL: 'silent' }),
      onClose: async () => {},
    });
    try {
      expect((server.address() as { address: string }).address).toBe('127.0.0.1');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is named when the machine has no such address, before anything starts', async () => {
    // 192.0.2.0/24 is set aside for documentation (RFC 5737): no machine has it.
    const checking = ensurePortFree(freePortNumber(), 'PORT', '192.0.2.1');
    await expect(checking).rejects.toThrow(EnvironmentError);
    await expect(checking).rejects.toThrow('LISTEN_ADDRESS 192.0.2.1 is not an address of this machine');
  });
});

/** A port number nobody is likely to hold (the check above never gets to bind it). */
const freePortNumber = () => 40_000 + Math.floor(Math.random() * 20_000);

describe('the port a service listens on', () => {
  it('is refused with its setting named when another program listens on it', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const checking = ensurePortFree(port, 'PORT');
      await expect(checking).rejects.toThrow(EnvironmentError);
      await expect(checking).rejects.toThrow(
        `port ${port} (PORT) is in use by another program. Stop that program, or choose another port with PORT.`,
      );
    } finally {
      blocker.close();
    }
    await expect(ensurePortFree(port, 'PORT')).resolves.toBeUndefined();
  });
});
