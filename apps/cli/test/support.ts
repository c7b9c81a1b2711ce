import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import { afterAll, beforeAll } from 'vitest';

export const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Node's arguments for one of the package's scripts (`node …`), so that tests start what `pnpm start` and `pnpm cli` start. */
function scriptArguments(script: 'start' | 'cli'): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(appRoot, 'package.json'), 'utf8')) as {
    scripts: Record<'start' | 'cli', string>;
  };
  const [program, ...args] = scripts[script].split(' ');
  if (program !== 'node') throw new Error(`the ${script} script no longer starts with node: ${scripts[script]}`);
  return args;
}
const CLI = scriptArguments('cli');
const LAUNCHER = scriptArguments('start');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: unknown;
}

/** Runs `pnpm -s cli …` the way an operator does, as a separate process; `input` is its standard input. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd: string = appRoot, input = ''): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...CLI, ...args],
      { cwd, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
      },
    );
    child.stdin?.end(input);
  });
}

/** Runs the launcher expecting it to give up: its exit code and output. */
export function runLauncher(env: NodeJS.ProcessEnv, cwd: string = appRoot): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      LAUNCHER,
      { cwd, env: { ...process.env, ...env }, timeout: 90_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr, json: undefined }),
    );
  });
}

/** A running launcher, with what it has written on stdout and stderr so far. */
export type Platform = ChildProcess & { output(): string };

/** Starts `pnpm start` (the launcher) in its own process group, without waiting for anything. */
export function spawnLauncher(env: NodeJS.ProcessEnv, port: number, cwd: string = appRoot): ChildProcess {
  return spawn(process.execPath, LAUNCHER, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Starts `pnpm start` (the launcher) in its own process group, as a terminal would (so that
 * `process.kill(-pid, 'SIGINT')` is a Ctrl-C), and waits until it answers.
 */
export async function startPlatform(env: NodeJS.ProcessEnv, port: number, cwd: string = appRoot): Promise<Platform> {
  const child = spawnLauncher(env, port, cwd);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`launcher exited early:\n${output}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (response.ok) return Object.assign(child, { output: () => output });
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`launcher did not become ready:\n${output}`);
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Pids of PostgreSQL server processes whose command line names this data folder. */
export function postgresProcessesFor(dataDir: string): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-eo', 'pid,args'], (_error, stdout) => {
      resolve(
        stdout
          .split('\n')
          .filter((line) => line.includes('postgres') && line.includes(dataDir))
          .map((line) => Number.parseInt(line.trim(), 10)),
      );
    });
  });
}

/** The process group of `pid` (ps -o pgid). */
export function processGroupOf(pid: number): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile('ps', ['-o', 'pgid=', '-p', String(pid)], (error, stdout) =>
      error ? reject(error) : resolve(Number.parseInt(stdout.trim(), 10)),
    );
  });
}

const handedOut = new Set<number>();

/**
 * A port for a launcher or its embedded PostgreSQL to listen on: below the kernel's ephemeral
 * range (32768–60999 here), from which the ports of outgoing connections and of servers listening
 * on port 0 (the other test files' own, running at the same time) are drawn, above the machine's
 * services (RabbitMQ's 25672 is the highest below that range), and never the same one twice in
 * this process. 40000–49999 collided once in CI ("port 42192 (PORT) is in use"); five of the
 * machine's own services listen in it too.
 */
export function freePort(): number {
  for (;;) {
    const port = 26_000 + Math.floor(Math.random() * 6_000);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** A file's own migrated test database, and the environment that points `pnpm cli` at it. */
export interface CliDatabase {
  readonly database: TestDatabase;
  readonly env: NodeJS.ProcessEnv;
  /** How many rows a table holds now. */
  rowCount(table: string): Promise<number>;
}

/**
 * Sets up (beforeAll) and drops (afterAll) a test database for the file that calls it. Getters,
 * because the database exists only once beforeAll has run: read them inside tests and hooks.
 */
export function useCliDatabase(): CliDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());
  const current = (): TestDatabase => {
    if (!database) throw new Error('useCliDatabase: read its database inside a test or hook, after beforeAll ran');
    return database;
  };
  return {
    get database() {
      return current();
    },
    get env() {
      return { DATABASE_URL: current().url };
    },
    async rowCount(table) {
      return Number((await current().db(table).count<{ count: number }[]>('* as count'))[0]?.count);
    },
  };
}
