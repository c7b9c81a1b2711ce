import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, freePort, postgresProcessesFor, runCli, runLauncher, startPlatform } from './support';

/** `pnpm start` with the zero-setup embedded database, in a data folder of its own. */
describe('pnpm start with the embedded database', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-start-'));
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

  it('runs CLI commands when nothing is running, starting and stopping the database itself', async () => {
    const run = await runCli(['category', 'create', '--name', 'Offline'], env);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ id: expect.any(Number), name: 'Offline' });
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
  });
});

describe('pnpm start with a typo in a setting', () => {
  it.each([
    ['PORT', '30o0', 'PORT must be an integer >= 1, got "30o0"'],
    ['PUBLIC_URL', 'localhost:3000', 'PUBLIC_URL must be an absolute http or https URL, got "localhost:3000"'],
  ])('stops at once with one line naming %s, exit code 1, no stack trace', async (name, value, message) => {
    const run = await runLauncher({ [name]: value });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`pnpm start cannot start: ${message}\n`);
  });
});
