import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { relocatedDataDir } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appRoot, exited, freePort, postgresProcessesFor, runCli, runLauncher, startPlatform } from './support';

const repositoryRoot = path.resolve(appRoot, '../..');

/**
 * A checkout inside a private (0700) home directory, as /root is on many servers. Run as root
 * (as this suite is in CI containers), PostgreSQL runs as the `postgres` user, which cannot
 * reach anything in there; as an ordinary user the same test checks the usual case.
 */
describe('pnpm start from a checkout in a private home directory', () => {
  let home: string;
  let checkout: string;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'contacts-home-'));
    await chmod(home, 0o700);
    checkout = path.join(home, 'member-contacts');
    // Hard links: a full checkout with its node_modules (and the PostgreSQL programs inside
    // them) in a second or two, all under the private folder.
    execFileSync('cp', ['-al', repositoryRoot, checkout]);
    dataDir = path.join(checkout, '.data-private-home-test');
    env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(freePort()), DATABASE_URL: '', TEST_DATABASE_URL: '' };
  }, 120_000);
  /** The embedded PostgreSQL's data folder: moved out of the private home when run as root. */
  const pgdata = () => (userInfo().uid === 0 ? relocatedDataDir(dataDir) : path.join(dataDir, 'postgres'));
  afterAll(async () => {
    const relocated = pgdata();
    for (const pid of await postgresProcessesFor(relocated)) process.kill(pid, 'SIGKILL');
    await rm(relocated, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it('serves, and keeps its data where the database user can reach it', async () => {
    const port = freePort();
    const cliRoot = path.join(checkout, 'apps', 'cli');
    const launcher = await startPlatform({ ...env, LOG_LEVEL: 'info' }, port, cliRoot);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/login`)).status).toBe(200);
    // Said where, since as root it is not under DATA_DIR.
    await vi.waitFor(() => expect(launcher.output()).toContain(`(database: embedded, its data in ${pgdata()})`));

    const created = await runCli(['category', 'create', '--name', 'Private home'], env, cliRoot);
    expect(created.json).toEqual({ id: expect.any(Number), name: 'Private home' });

    if (userInfo().uid === 0) {
      // The data lives outside the private folder, and nothing was written into it as `postgres`.
      expect(existsSync(path.join(relocatedDataDir(dataDir), 'PG_VERSION'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    }
    launcher.kill('SIGTERM');
    expect(await exited(launcher)).toBe(0);
  });

  it('explains in a sentence, without a stack trace, when the database cannot start', async () => {
    // Another program already listens on the database's port.
    const blocker = createServer();
    const taken = freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    try {
      const run = await runLauncher(
        { ...env, DATA_DIR: `${dataDir}-port-taken`, EMBEDDED_PG_PORT: String(taken), PORT: String(freePort()) },
        path.join(checkout, 'apps', 'cli'),
      );
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `pnpm start: could not start the embedded database: the embedded PostgreSQL could not listen on port ${taken}: ` +
          'another program uses it. Stop that program or choose another port with EMBEDDED_PG_PORT.',
      );
    } finally {
      blocker.close();
      await rm(userInfo().uid === 0 ? relocatedDataDir(`${dataDir}-port-taken`) : `${dataDir}-port-taken`, {
        recursive: true,
        force: true,
      });
    }
  });
});
