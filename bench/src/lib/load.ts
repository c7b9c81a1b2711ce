import autocannon, { type Request } from 'autocannon';
import { cpuPerRequest, readCpu } from './cpu';

export interface LoadResult {
  requestsPerSecond: number;
  /** Milliseconds (autocannon records whole milliseconds; the mean keeps fractions). */
  p50: number;
  p99: number;
  mean: number;
  requests: number;
  /** Non-2xx answers plus errors and timeouts: any of these makes the run invalid. */
  failures: number;
  /** Microseconds of CPU per request of the measured window: the server process's, PostgreSQL's. */
  cpu: { server?: number; postgres?: number };
}

export interface LoadOptions {
  url: string;
  /** The process answering `url`, whose CPU per request is reported. */
  pid?: number;
  durationSeconds: number;
  connections: number;
  requests: Request[];
  /** Seconds of load before measuring (JIT, caches, pools). */
  warmupSeconds?: number;
}

async function run(options: LoadOptions, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    connections: options.connections,
    duration,
    requests: options.requests,
  });
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds) await run(options, options.warmupSeconds);
  const before = await readCpu(options.pid);
  const result = await run(options, options.durationSeconds);
  const after = await readCpu(options.pid);
  // Responses received in the window: requests still in flight when it closes are not counted.
  const requests = result.requests.total;
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    requests,
    failures: result.non2xx + result.errors + result.timeouts,
    cpu: cpuPerRequest(before, after, requests),
  };
}
