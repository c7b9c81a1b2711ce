import http from 'node:http';

/**
 * A raw HTTP client for hostile requests: unlike fetch it sends any bytes in the body, Latin-1
 * (invalid UTF-8) bytes in paths and headers, any method and content type, and never retries.
 */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | undefined;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Milliseconds from sending to the end of the answer. */
  elapsedMs: number;
}

export function rawAgent(maxSockets = 16): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets });
}

export function send(
  baseUrl: string,
  request: RawRequest,
  agent: http.Agent,
  timeoutMs = 15_000,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: {
          ...request.headers,
          ...(request.body !== undefined ? { 'content-length': String(request.body.length) } : {}),
        },
        agent,
        insecureHTTPParser: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            elapsedMs: Date.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/** How many generated requests a fuzz test runs: FUZZ_RUNS scales it up for long local runs. */
export function fuzzRuns(defaultRuns: number): number {
  const configured = Number.parseInt(process.env.FUZZ_RUNS ?? '', 10);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : defaultRuns;
}

/** FUZZ_SEED replays the generated requests of a failed run (the seed its message names). */
export function fuzzSeed(): { seed: number } | Record<string, never> {
  const seed = Number.parseInt(process.env.FUZZ_SEED ?? '', 10);
  return Number.isSafeInteger(seed) ? { seed } : {};
}

/** Strings that have broken parsers, ORMs and template engines elsewhere. */
export const HOSTILE_STRINGS = [
  "' OR '1'='1",
  '1; DROP TABLE contacts; --',
  "' UNION SELECT password_hash FROM members --",
  "1' AND pg_sleep(5) --",
  '$$; select 1; $$',
  '\\x00',
  '\u0000',
  '{{7*7}}',
  '\x24{7*7}',
  '<%= 7*7 %>',
  '#{7*7}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '%',
  '%ff%fe',
  '\ud800',
  '\uffff',
  '𝕏'.repeat(100),
  'a'.repeat(70_000),
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '99999999999999999999',
  '-1',
  '1.5',
  '0x10',
  ' 1',
  'null',
  'true',
  '[]',
  '{}',
];

export const HOSTILE_IDS = [
  '99999999999999999999',
  '2147483648',
  '2147483647',
  '-1',
  '0',
  '1.5',
  '1e3',
  '%00',
  '1%00',
  '%ff',
  '%',
  '%2F',
  '..',
  '%2e%2e',
  "1'--",
  '1;select',
  '{{1}}',
  '\x24{1}',
  'null',
  'undefined',
  '__proto__',
  '\u00e9',
  '\u00ff\u00fe',
  ' ',
  '%20',
  '0x1',
  'a'.repeat(300),
];
