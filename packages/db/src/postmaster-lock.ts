import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * What PostgreSQL's lock file, <pgdata>/postmaster.pid, says, and whether the process it names
 * is really that data directory's postmaster. A pid in that file proves nothing by itself:
 * after a reboot or a container restart the same number may belong to any other program, and
 * signalling it would stop that program. Only a process whose command line is `postgres -D
 * <this pgdata>` is treated as the server.
 */
export interface PostmasterLock {
  pid: number;
  /** The port the server listens on (the file's 4th line), whatever port the reader would have chosen. */
  port: number | undefined;
}

export function lockFileOf(pgdata: string): string {
  return path.join(pgdata, 'postmaster.pid');
}

export function readPostmasterLock(pgdata: string): PostmasterLock | undefined {
  let lines: string[];
  try {
    lines = readFileSync(lockFileOf(pgdata), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = positiveInteger(lines[0]);
  if (pid === undefined) return undefined;
  return { pid, port: positiveInteger(lines[3]) };
}

/**
 * - 'postmaster': the postmaster of `pgdata`;
 * - 'stale': no such process, or another program (or another user's, which we could not signal anyway);
 * - 'unknown': a live process whose command line this machine does not show (neither /proc nor ps).
 */
export type LockHolder = 'postmaster' | 'stale' | 'unknown';

export function identifyLockHolder(pid: number, pgdata: string): LockHolder {
  if (pid === process.pid) return 'stale';
  try {
    process.kill(pid, 0);
  } catch {
    // ESRCH: gone. EPERM: another user's process; our postmaster runs as this user (or, for
    // root, as `postgres`, which root may signal), so it is not ours.
    return 'stale';
  }
  const args = commandLine(pid);
  if (args === 'gone') return 'stale';
  if (args === undefined) return 'unknown';
  return isPostmasterOf(args, pgdata) ? 'postmaster' : 'stale';
}

/** The parent of `pid` (the process that started it, until that one exits); undefined when it cannot be told. */
export function parentOf(pid: number): number | undefined {
  if (existsSync('/proc/self/stat')) {
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return positiveInteger(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  }
  return positiveInteger(ps(pid, 'ppid=')?.trim());
}

/** Its arguments (from /proc) or its command line as one string (from ps); 'gone' when it no longer exists. */
function commandLine(pid: number): string[] | string | 'gone' | undefined {
  if (existsSync('/proc/self/cmdline')) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    } catch {
      return 'gone';
    }
  }
  const line = ps(pid, 'args=');
  return line === undefined ? undefined : line.trim() || 'gone';
}

function isPostmasterOf(args: string[] | string, pgdata: string): boolean {
  if (Array.isArray(args)) {
    const dataFlag = args.indexOf('-D');
    return path.basename(args[0] ?? '') === 'postgres' && dataFlag > 0 && samePath(args[dataFlag + 1] ?? '', pgdata);
  }
  // ps joins the arguments with spaces: find " -D <pgdata> " and the program before it.
  for (const dir of new Set([pgdata, realPath(pgdata)])) {
    const at = `${args} `.indexOf(` -D ${dir} `);
    if (at > 0 && path.basename(args.slice(0, at)) === 'postgres') return true;
  }
  return false;
}

/** `ps -o <field> -p <pid>`: '' when there is no such process, undefined when ps cannot run. */
function ps(pid: number, field: string): string | undefined {
  try {
    return execFileSync('ps', ['-o', field, '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (error) {
    // ps exits 1 when it lists nothing; ENOENT: there is no ps.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : '';
  }
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b) || realPath(a) === realPath(b);
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function positiveInteger(text: string | undefined): number | undefined {
  const value = Number.parseInt(text?.trim() ?? '', 10);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
