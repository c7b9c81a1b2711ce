import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  exited,
  freePort,
  postgresProcessesFor,
  processGroupOf,
  runCli,
  runLauncher,
  spawnLauncher,
  startPlatform,
} from './support';

/** `pnpm start` with the zero-setup embedded database, in a data folder of its own. */
describe('pnpm start with the embedded database', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-start-'));
    // A folder the `postgres` user can reach, as `.data` in a checkout is: mkdtemp makes it 0700,
    // which (run as root) keeps the data elsewhere, as start-private-home.test.ts checks.
    await chmod(dataDir, 0o755);
    env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(freePort()), DATABASE_URL: '', TEST_DATABASE_URL: '' };
  });
  afterAll(async () => {
    for (const pid of await postgresProcessesFor(dataDir)) process.kill(pid, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the base URL, stops its database on SIGTERM, and keeps the data across restarts', async () => {
    const port = freePort();
    const first = await startPlatform(env, port);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(await postgresProcessesFor(dataDir)).not.toHaveLength(0);

    // The CLI shares the running embedded database.
    const created = await runCli(
      ['member', 'create', '--email', 'kept@example.test', '--name', 'Kept', '--password', 'long enough password'],
      env,
    );
    expect(created.code).toBe(0);
    // Started again on its port: this DATA_DIR's own pnpm start is named, not "another program".
    const twice = await runLauncher({ ...env, PORT: String(port) });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toBe(
      `pnpm start cannot start: pnpm start is already running for this DATA_DIR at http://localhost:${port} ` +
        `(process ${first.pid}, port ${port}). Use that one, or stop it (Ctrl-C in its terminal) first; a second one needs a PORT of its own.\n`,
    );

    first.kill('SIGTERM');
    expect(await exited(first)).toBe(0);
    expect(await postgresProcessesFor(dataDir)).toEqual([]);

    const second = await startPlatform(env, port);
    const again = await runCli(
      ['member', 'create', '--email', 'kept@example.test', '--name', 'Kept', '--password', 'long enough password'],
      env,
    );
    expect(again.stderr).toContain('already exists');
    second.kill('SIGTERM');
    expect(await exited(second)).toBe(0);
  });

  it('explains a TMPDIR that cannot be written in one paragraph, from the script itself (tsx keeps its cache there)', async () => {
    const notAFolder = path.join(dataDir, 'tmpdir-is-a-file');
    await writeFile(notAFolder, '');
    const run = await runLauncher({ ...env, TMPDIR: notAFolder, PORT: String(freePort()) });
    expect(run.stderr).toBe(
      'pnpm start cannot start: uploaded files are kept on disk until they are stored, in a folder made under the ' +
        `temporary folder, and ${notAFolder} is a file, or lies under one, not a folder (ENOTDIR). Set TMPDIR to a ` +
        'folder this user can write in.\n',
    );
    // Nothing else: the services' database listeners, cut off by the shutdown, are not an outage.
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
  });

  it('starts after a first start was killed while its database was being made (kill -9 during initdb)', async () => {
    const fresh = await mkdtemp(path.join(tmpdir(), 'contacts-interrupted-'));
    await chmod(fresh, 0o755);
    const freshEnv = { ...env, DATA_DIR: fresh, EMBEDDED_PG_PORT: String(freePort()) };
    const pgdata = path.join(fresh, 'postgres');
    try {
      const first = spawnLauncher(freshEnv, freePort());
      // initdb has written its first file (PG_VERSION), and the catalogs are still to come.
      const begun = () =>
        existsSync(path.join(`${pgdata}.initialising`, 'PG_VERSION')) || existsSync(path.join(pgdata, 'PG_VERSION'));
      await vi.waitFor(() => expect(begun()).toBe(true), { timeout: 60_000, interval: 10 });
      process.kill(-(first.pid as number), 'SIGKILL');
      await exited(first);

      const port = freePort();
      const second = await startPlatform(freshEnv, port);
      expect((await fetch(`http://127.0.0.1:${port}/login`)).status).toBe(200);
      expect(existsSync(`${pgdata}.initialising`)).toBe(false);
      second.kill('SIGTERM');
      expect(await exited(second)).toBe(0);
    } finally {
      for (const pid of await postgresProcessesFor(fresh)) process.kill(pid, 'SIGKILL');
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('recovers from a launcher killed with SIGKILL, whose orphaned PostgreSQL kept running', async () => {
    const port = freePort();
    const crashed = await startPlatform(env, port);
    crashed.kill('SIGKILL');
    await exited(crashed);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await postgresProcessesFor(dataDir)).not.toHaveLength(0);

    const recovered = await startPlatform(env, port);
    const member = await runCli(
      ['member', 'create', '--email', 'after-crash@example.test', '--name', 'A', '--password', 'long enough password'],
      env,
    );
    expect(member.code).toBe(0);
    recovered.kill('SIGTERM');
    expect(await exited(recovered)).toBe(0);
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
  });

  it('shares its database with a CLI on another EMBEDDED_PG_PORT, and Ctrl-C stops the services, then the database', async () => {
    const port = freePort();
    const launcher = await startPlatform(env, port);
    const postmaster = await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');

    // The README's workflow: `pnpm start`, then `pnpm -s cli …` in another terminal, where
    // EMBEDDED_PG_PORT may differ or be unset. The CLI uses the running server on its own port.
    for (const embeddedPort of [String(freePort()), '']) {
      const run = await runCli(['member', 'list'], { ...env, EMBEDDED_PG_PORT: embeddedPort });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).toBe(postmaster);
    // The quick start's `pnpm -s cli demo`, without the PORT that `pnpm start` was given: its
    // links point at the one running.
    const demo = await runCli(['demo'], env);
    expect((demo.json as { authorize_url: string }).authorize_url).toMatch(
      new RegExp(`^http://localhost:${port}/oauth/authorize\\?`),
    );
    expect((demo.json as { next_step: string }).next_step).toMatch(/^Open authorize_url/);

    // Ctrl-C in the terminal: SIGINT to the launcher's process group. The database is not in
    // it (it would stop at once, under the services); the launcher stops it after them.
    expect(await processGroupOf(Number.parseInt(postmaster, 10))).not.toBe(launcher.pid);
    process.kill(-(launcher.pid as number), 'SIGINT');
    expect(await exited(launcher)).toBe(0);
    expect(launcher.output()).not.toMatch(/"level":(40|50)|WARN|ERROR|\n\s+at /);
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
  });

  it('keeps a second pnpm start on the same DATA_DIR serving when the first stops: it starts the database again and owns it', async () => {
    const first = await startPlatform(env, freePort());
    const secondPort = freePort();
    const second = await startPlatform(env, secondPort);
    first.kill('SIGTERM');
    expect(await exited(first)).toBe(0);

    await vi.waitFor(
      async () => {
        expect((await fetch(`http://127.0.0.1:${secondPort}/readyz`)).status).toBe(200);
        expect(await readFile(path.join(dataDir, 'postgres-owner.pid'), 'utf8')).toBe(String(second.pid));
      },
      { timeout: 30_000, interval: 250 },
    );
    // A CLI command now uses the second's server, and leaves it running.
    const run = await runCli(['category', 'create', '--name', 'After the first stopped'], env);
    expect(run.code).toBe(0);
    expect(await postgresProcessesFor(dataDir)).not.toHaveLength(0);

    second.kill('SIGTERM');
    expect(await exited(second)).toBe(0);
    expect(second.output()).not.toMatch(/"level":50|\n\s+at /);
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
  });

  it('initialises a new DATA_DIR once when two pnpm start begin at the same moment', async () => {
    const freshDir = await mkdtemp(path.join(tmpdir(), 'contacts-start-twice-'));
    await chmod(freshDir, 0o755);
    const freshEnv = { ...env, DATA_DIR: freshDir, EMBEDDED_PG_PORT: String(freePort()) };
    try {
      const ports = [freePort(), freePort()];
      const both = await Promise.all(ports.map((port) => startPlatform(freshEnv, port)));
      for (const port of ports) expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      for (const platform of both) {
        platform.kill('SIGTERM');
        expect(await exited(platform)).toBe(0);
      }
      expect(await postgresProcessesFor(freshDir)).toEqual([]);
    } finally {
      for (const pid of await postgresProcessesFor(freshDir)) process.kill(pid, 'SIGKILL');
      await rm(freshDir, { recursive: true, force: true });
    }
  });

  it('leaves alone an unrelated process that a stale postmaster.pid names (a pid reused after a reboot)', async () => {
    const unrelated = spawn('sleep', ['300'], { stdio: 'ignore' });
    try {
      const pid = unrelated.pid as number;
      await writeFile(
        path.join(dataDir, 'postgres', 'postmaster.pid'),
        `${pid}\n${path.join(dataDir, 'postgres')}\n1700000000\n${env.EMBEDDED_PG_PORT}\n\n127.0.0.1\n  1234  5678\nready   \n`,
      );
      const run = await runCli(['category', 'create', '--name', 'After a reboot'], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(unrelated.exitCode).toBeNull();
      expect(unrelated.signalCode).toBeNull();
    } finally {
      unrelated.kill('SIGKILL');
    }
  });

  it('runs CLI commands when nothing is running, starting and stopping the database itself', async () => {
    const run = await runCli(['category', 'create', '--name', 'Offline'], env);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ id: expect.any(Number), name: 'Offline' });
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
  });

  it('runs CLI commands side by side when nothing is running: the one that started the database stops it after the others', async () => {
    // A cron job next to an operator's command: the first to finish used to stop the database under the others.
    const runs = await Promise.all(
      ['First', 'Second', 'Third', 'Fourth'].map((name) => runCli(['category', 'create', '--name', name], env)),
    );
    for (const run of runs) {
      expect(run.stderr).not.toMatch(/could not|shutting down|terminating/);
      expect(run.code).toBe(0);
    }
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
  });

  it('starts its database again when PostgreSQL dies under it (kill -9, the OOM killer), and says so', async () => {
    const port = freePort();
    const platform = await startPlatform({ ...env, LOG_LEVEL: 'warn' }, port);
    try {
      const postmasterPid = async () =>
        Number.parseInt(await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8'), 10);
      const killed = await postmasterPid();
      process.kill(killed, 'SIGKILL');

      await vi.waitFor(
        async () => {
          expect(await postmasterPid()).not.toBe(killed);
          expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        },
        { timeout: 30_000, interval: 250 },
      );
      expect(platform.output()).toContain(
        `the embedded PostgreSQL (pid ${killed}) ended (signal SIGKILL): starting it again`,
      );
      const run = await runCli(['category', 'create', '--name', 'After PostgreSQL died'], env);
      expect(run.code).toBe(0);

      platform.kill('SIGTERM');
      expect(await exited(platform)).toBe(0);
      expect(await postgresProcessesFor(dataDir)).toEqual([]);
    } finally {
      // A failed expectation must not leave the launcher running.
      if (platform.exitCode === null) process.kill(-(platform.pid as number), 'SIGKILL');
    }
  });
});

describe('pnpm start with a typo in a setting', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-typo-'));
  });
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));
  // Valid production secrets but for the one a case breaks.
  const production = {
    NODE_ENV: 'production',
    COOKIE_KEYS: 'k'.repeat(43),
    JWKS: JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] }),
    INTROSPECTION_CLIENT_ID: 'contacts-api',
    INTROSPECTION_CLIENT_SECRET: 's'.repeat(43),
    DATABASE_URL: 'postgres://contacts:pw@127.0.0.1:1/contacts',
  };

  it.each([
    [{ PORT: '30o0' }, 'PORT must be an integer >= 1, got "30o0"'],
    [{ PORT: '70000' }, 'PORT must be an integer <= 65535, got "70000"'],
    [{ PUBLIC_URL: 'localhost:3000' }, 'PUBLIC_URL must be an absolute http or https URL, got "localhost:3000"'],
    [{ EMBEDDED_PG_PORT: 'abc' }, 'EMBEDDED_PG_PORT must be an integer >= 1, got "abc"'],
    [
      { PORT: '4224', EMBEDDED_PG_PORT: '4224' },
      'PORT and EMBEDDED_PG_PORT are both 4224: the product and its embedded PostgreSQL need a port each',
    ],
    [
      { PUBLIC_URL: 'http://localhost:4219/base' },
      'PUBLIC_URL must be an origin only (scheme, host and port, e.g. https://contacts.example.com): the services answer at its root; got "http://localhost:4219/base"',
    ],
    [
      { LOG_LEVEL: 'verbose' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"',
    ],
    [{ JANITOR_INTERVAL: '-1' }, 'JANITOR_INTERVAL must be an integer >= 0, got "-1"'],
    [{ SYNC_TOKEN_TTL: '10' }, 'SYNC_TOKEN_TTL must be an integer >= 60, got "10"'],
    [
      { DATABASE_URL: 'http://127.0.0.1:5432/x' },
      'DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database), got "http://127.0.0.1:5432/x"',
    ],
    [{ REDIS_URL: 'not-a-url' }, 'REDIS_URL must be a redis:// or rediss:// URL (redis://host:6379), got "not-a-url"'],
    [
      { JWKS: 'notjson' },
      'JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): it is not JSON',
    ],
    [
      { NODE_ENV: 'production', DATABASE_URL: production.DATABASE_URL },
      'COOKIE_KEYS, JWKS, INTROSPECTION_CLIENT_ID, INTROSPECTION_CLIENT_SECRET must be set in production',
    ],
    // Without it, each process would have started an embedded database of its own.
    [
      { ...production, DATABASE_URL: '' },
      'DATABASE_URL must be set in production (postgres://user:password@host:5432/database); the embedded PostgreSQL is for development',
    ],
    // A misspelt name is ignored, so its refusal says what it likely meant.
    [
      { ...production, DATABASE_URL: '', DATABSE_URL: production.DATABASE_URL },
      'DATABASE_URL must be set in production (postgres://user:password@host:5432/database); the embedded PostgreSQL is for development (DATABSE_URL is set: a misspelling of DATABASE_URL?)',
    ],
    // A typo there turned the production checks off: secrets generated, an embedded database.
    [{ NODE_ENV: 'prod' }, 'NODE_ENV must be one of production, development, test (or unset: development), got "prod"'],
    [
      { ...production, COOKIE_KEYS: 'x' },
      'COOKIE_KEYS must be at least 32 characters (it has 1); generate one with `openssl rand -base64 32`',
    ],
  ])('stops at once with one line naming the variable (%j), exit code 1, no stack trace', async (setting, message) => {
    const run = await runLauncher({ DATA_DIR: dataDir, DATABASE_URL: '', ...setting });
    expect(run.stderr).toBe(`pnpm start cannot start: ${message}\n`);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
  });

  it('names PORT when another program listens on it, before starting anything', async () => {
    const blocker = createServer();
    const port = freePort();
    await new Promise<void>((resolve) => blocker.listen(port, resolve));
    try {
      const run = await runLauncher({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(freePort()) });
      expect(run.stderr).toBe(
        `pnpm start cannot start: port ${port} (PORT) is in use by another program. ` +
          'Stop that program, or choose another port with PORT.\n',
      );
      expect(run.stdout).toBe('');
      expect(run.code).toBe(1);
      expect(await postgresProcessesFor(dataDir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });

  it('explains a DATA_DIR that cannot be written in one paragraph, also with DATABASE_URL', async () => {
    const file = path.join(dataDir, 'a-file');
    await writeFile(file, '');
    const run = await runLauncher({ DATA_DIR: path.join(file, 'data'), DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(run.stderr).toBe(
      `pnpm start cannot start: the development secrets could not be kept in ${path.join(file, 'data', 'secrets.json')}: ` +
        `${path.join(file, 'data')} is a file, or lies under one, not a folder (ENOTDIR). Choose a writable folder with ` +
        'DATA_DIR, or set COOKIE_KEYS, JWKS, INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET.\n',
    );
    expect(run.code).toBe(1);
  });
});
