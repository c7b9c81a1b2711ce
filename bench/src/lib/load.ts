import autocannon, { type Request } from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  /** Milliseconds (autocannon records whole milliseconds; the mean keeps fractions). */
  p50: number;
  p99: number;
  mean: number;
  requests: number;
  /** Non-2xx answers plus errors and timeouts: any of these makes the run invalid. */
  failures: number;
}

export interface LoadOptions {
  url: string;
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
  const result = await run(options, options.durationSeconds);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
