import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptOf } from '@contacts/config/testing/start-script';

export const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BENCH = path.join(REPOSITORY, 'bench');

/**
 * A service in a process of its own, so that it never shares the load generator's event loop.
 * Services run from their production bundles (`pnpm build`: plain JavaScript, no TypeScript
 * loader), as the images run them; `pnpm bench` builds them first.
 */
export interface Service {
  name: string;
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 from its readiness URL. */
  startMs: number;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  name: string;
  /** The bundle to run, relative to the repository (`pnpm bench` builds them first). */
  script: string;
  /** Or made from the service's own URL (e.g. PUBLIC_URL: the address its clients use). */
  env: NodeJS.ProcessEnv | ((url: string) => NodeJS.ProcessEnv);
  /** Polled until it answers 200. */
  readyPath: string;
  logDir: string;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeFlags?: string[];
}

/**
 * How production runs an app (its start script, its image's CMD): the bundle, relative to the
 * repository, and the node flags. The bench's own runners run with the same flags.
 */
export function productionEntry(app: 'auth' | 'contacts-api'): { script: string; nodeFlags: string[] } {
  const { nodeFlags, bundle } = startScriptOf(path.join(REPOSITORY, 'apps', app));
  return { script: path.relative(REPOSITORY, bundle), nodeFlags };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const children = new Set<ChildProcess>();
// Whatever way the benchmark ends (even a crash), its services end with it.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export async function startService(options: ServiceOptions): Promise<Service> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = createWriteStream(path.join(options.logDir, `${options.name}.log`), { flags: 'a' });
  const env = typeof options.env === 'function' ? options.env(url) : options.env;
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), path.join(REPOSITORY, options.script)],
    { cwd: BENCH, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exit.then(() => {
    exited = true;
  });

  for (;;) {
    if (exited) throw new Error(`${options.name} exited while starting; see ${options.logDir}/${options.name}.log`);
    if (performance.now() - started > 60_000) throw new Error(`${options.name} did not become ready in 60 s`);
    const ok = await fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(2_000) }).then(
      async (response) => {
        await response.body?.cancel();
        return response.ok;
      },
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const startMs = performance.now() - started;

  return {
    name: options.name,
    url,
    pid: child.pid as number,
    startMs,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** Resident set size of a process, in bytes (Linux: /proc/PID/status VmRSS). */
export async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples the RSS of some processes every 200 ms, each sample tagged with the phase running then. */
export class MemorySampler {
  private readonly samples = new Map<string, Array<{ phase: string; bytes: number }>>();
  private readonly timer: NodeJS.Timeout;
  phase = 'idle';

  constructor(private readonly services: () => Service[]) {
    this.timer = setInterval(() => void this.sampleNow(), 200);
  }

  /** One sample of every process now (also called by the timer). */
  async sampleNow() {
    const phase = this.phase;
    for (const service of this.services()) {
      const bytes = await residentBytes(service.pid);
      if (bytes === undefined) continue;
      const list = this.samples.get(service.name) ?? [];
      list.push({ phase, bytes });
      this.samples.set(service.name, list);
    }
  }

  /** The samples of one service taken while a phase matching `phase` ran. */
  during(name: string, phase: (phase: string) => boolean): number[] {
    return (this.samples.get(name) ?? []).filter((sample) => phase(sample.phase)).map((sample) => sample.bytes);
  }

  stop() {
    clearInterval(this.timer);
  }
}
