import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptOf } from '@contacts/config/testing/start-script';

export const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');

export type Service = 'auth' | 'contacts-api';

/**
 * One service process, started the way production starts it: the app's `start` script (the
 * same command as its Dockerfile's CMD), which runs the bundle `pnpm build` made. turbo builds
 * the bundles before this package's tests.
 */
export interface Replica {
  name: string;
  service: Service;
  port: number;
  url: string;
  child: ChildProcess;
  /** Everything it wrote, line by line (stdout and stderr). */
  lines: string[];
  exit: Promise<number | null>;
  /** The JSON log records it wrote (lines that are not JSON are kept in `lines` only). */
  records(): Array<Record<string, unknown>>;
  signal(signal: NodeJS.Signals): void;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function startReplica(name: string, service: Service, port: number, env: NodeJS.ProcessEnv): Replica {
  const { nodeFlags, bundle } = startScriptOf(path.join(REPO_ROOT, 'apps', service));
  const child = spawn(process.execPath, [...nodeFlags, bundle], {
    cwd: path.join(REPO_ROOT, 'apps', service),
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, killed as one.
    detached: true,
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
    });
    stream?.on('end', () => rest && lines.push(rest));
  }
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    service,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    lines,
    exit,
    records: () =>
      lines.flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    signal(signal) {
      if (child.pid === undefined) return;
      try {
        // SIGTERM to the service itself (graceful shutdown); anything else to the whole group.
        if (signal !== 'SIGTERM') process.kill(-child.pid, signal);
        else if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, signal);
      } catch {
        // already gone
      }
    },
  };
}

/** The first JSON record matching, waiting a little: a child's output arrives after its answer. */
export async function recordOf(
  replica: Replica,
  matches: (record: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown> | undefined> {
  for (let waited = 0; waited < 2_000; waited += 20) {
    const found = replica.records().find(matches);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

/** Resolves when GET /readyz answers 200; fails early with the replica's output if it exits. */
export async function waitUntilReady(replica: Replica, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (replica.child.exitCode !== null) {
      throw new Error(`${replica.name} exited with ${replica.child.exitCode}:\n${replica.lines.join('\n')}`);
    }
    const ready = await fetch(`${replica.url}/readyz`, { signal: AbortSignal.timeout(3_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${replica.name} not ready after ${timeoutMs} ms:\n${replica.lines.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops every replica still running: SIGTERM, then SIGKILL to the group after a grace period. */
export async function stopAll(replicas: Replica[], graceMs = 5_000): Promise<void> {
  await Promise.all(
    replicas.map(async (replica) => {
      if (replica.child.exitCode !== null || replica.child.signalCode !== null) return;
      replica.signal('SIGTERM');
      const timer = setTimeout(() => replica.signal('SIGKILL'), graceMs);
      await replica.exit;
      clearTimeout(timer);
      // The esbuild helper may outlive its parent for a moment; take the group down.
      replica.signal('SIGKILL');
    }),
  );
}
