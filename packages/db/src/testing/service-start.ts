import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withDatabaseName } from '../index';
import { createEmptyTestDatabase, createTestDatabase, type TestDatabase } from './test-database';

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A service's own entry (what `node dist/main.js` runs in production, from source) on a database
 * it cannot use: one it never will (missing, wrong role or host, not migrated or behind) is
 * refused in one paragraph on stderr with exit code 1 before anything listens; one that is down
 * for now is waited for. The same cases for every service: `service` names it as its messages
 * do, `appDir` is its app folder, `productionSecrets` the secrets it needs in production.
 */
export function describeDatabaseRefusalsAtStart({
  service,
  appDir,
  productionSecrets,
}: {
  service: string;
  appDir: string;
  productionSecrets: () => Promise<NodeJS.ProcessEnv>;
}): void {
  describe(`${service} started on a database it cannot use`, () => {
    let env: NodeJS.ProcessEnv;
    let empty: TestDatabase;
    let behind: TestDatabase;
    beforeAll(async () => {
      env = {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://contacts.example.test',
        ...(await productionSecrets()),
      };
      [empty, behind] = await Promise.all([createEmptyTestDatabase(), createTestDatabase()]);
      const [last] = await behind.db('knex_migrations').orderBy('id', 'desc').limit(1).pluck('name');
      await behind.db('knex_migrations').where({ name: last }).delete();
    });
    afterAll(async () => Promise.all([empty?.drop(), behind?.drop()]));

    /** The production entry, as the image runs it (from source), until it exits or `until` is printed. */
    const start = (databaseUrl: string, port: number, until?: string) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: appDir,
        env: { ...env, DATABASE_URL: databaseUrl, PORT: String(port) },
      });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const printed = new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
          if (until && stdout.includes(until)) resolve();
        }),
      );
      // A service that does not stop by itself is stopped before the test's own time runs out.
      const deadline = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
        child.on('close', (code) => {
          clearTimeout(deadline);
          resolve({ code, stdout, stderr });
        }),
      );
      return { child, printed, exited };
    };
    const serverUrl = () => new URL(inject('databaseServerUrl'));
    const withUser = (user: string) => {
      const url = serverUrl();
      url.username = user;
      url.password = 's3cret-pw';
      return url.toString();
    };
    const missing = `contacts_missing_${randomBytes(4).toString('hex')}`;

    it.each([
      [
        'a database that does not exist',
        () => withDatabaseName(withUser('postgres'), missing),
        `database "${missing}" does not exist`,
      ],
      [
        'a role that does not exist',
        () => withUser('contacts_no_such_role'),
        'role "contacts_no_such_role" does not exist',
      ],
      ['a host that does not exist', () => 'postgres://nope.invalid:5432/x', 'the host "nope.invalid" was not found'],
      [
        'a database never migrated',
        () => empty.url,
        'has not been migrated: it has none of the tables this service needs',
      ],
      ['a database behind the code', () => behind.url, 'is behind: 1 migration(s) not applied'],
    ])('refuses %s: one paragraph naming the cause, exit code 1, nothing listening', async (_case, url, cause) => {
      const port = await freePort();
      const run = await start(url(), port).exited;
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^${service} cannot start: [^\\n]+\\n$`));
      expect(run.stderr).toContain(cause);
      expect(run.stderr).toContain('DATABASE_URL');
      expect(run.stderr).not.toContain('s3cret-pw');
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stdout).not.toContain('listening on port');
      expect(run.stdout).not.toContain('"stack"');
    });

    it('tells how to migrate a database that is not', async () => {
      const run = await start(empty.url, await freePort()).exited;
      expect(run.stderr).toContain('Run `pnpm -s cli migrate latest` with the same DATABASE_URL');
      expect(run.stderr).toContain('`docker compose run --rm migrate`');
      expect(run.stderr).toContain(`then start ${service} again; or set MIGRATE_ON_START=true`);
    });

    it('starts on a server that is down (it may be starting), not ready, logging one line per attempt', async () => {
      const port = await freePort();
      const service = start('postgres://postgres@127.0.0.1:1/x', port, 'listening on port');
      await Promise.race([service.printed, service.exited]);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 500));
      service.child.kill('SIGTERM');
      const run = await service.exited;
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('"db_code":"ECONNREFUSED"');
      expect(run.stdout).not.toContain('"stack"');
      expect(run.stdout).not.toMatch(/\\n\s+at /);
    });
  });
}
