import { readdir, readFile } from 'node:fs/promises';

/**
 * CPU time used so far, from Linux's /proc (user + system, in seconds): what a side of a
 * comparison costs, not only how fast it answers. On a machine where the load generator, the
 * server and PostgreSQL share the cores, requests/s says who won; CPU per request says where the
 * time went (it moves between runs too: the same read cost 217 to 291 µs in four runs of an hour).
 */

/** /proc reports times in USER_HZ ticks, 100 a second on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** One process's CPU seconds so far; undefined when /proc cannot tell (not Linux, process gone). */
async function processCpuSeconds(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from its closing parenthesis:
    // utime is the 14th field of the line, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of every PostgreSQL process on this machine (postmaster, backends, background
 * workers): the database's share of a run when it runs here, as the embedded one always does.
 * Processes that start or end in between count only while both readings see them.
 */
async function postgresCpuSeconds(): Promise<Map<number, number>> {
  const seconds = new Map<number, number>();
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return seconds;
  }
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const pid = Number(entry);
        const name = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
        if (name.trim() !== 'postgres') return;
        const used = await processCpuSeconds(pid);
        if (used !== undefined) seconds.set(pid, used);
      }),
  );
  return seconds;
}

export interface CpuReading {
  server: number | undefined;
  postgres: Map<number, number>;
}

export async function readCpu(serverPid: number | undefined): Promise<CpuReading> {
  const [server, postgres] = await Promise.all([
    serverPid === undefined ? undefined : processCpuSeconds(serverPid),
    postgresCpuSeconds(),
  ]);
  return { server, postgres };
}

/** Microseconds of CPU per request between two readings: the server's and PostgreSQL's. */
export function cpuPerRequest(
  before: CpuReading,
  after: CpuReading,
  requests: number,
): { server?: number; postgres?: number } {
  if (requests === 0) return {};
  const perRequest = (seconds: number) => (seconds * 1e6) / requests;
  let postgres = 0;
  for (const [pid, used] of after.postgres) {
    const earlier = before.postgres.get(pid);
    if (earlier !== undefined) postgres += used - earlier;
  }
  return {
    ...(before.server !== undefined && after.server !== undefined
      ? { server: perRequest(after.server - before.server) }
      : {}),
    ...(after.postgres.size > 0 ? { postgres: perRequest(postgres) } : {}),
  };
}
