import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { registerClient } from '@contacts/auth';
import { generateSecrets } from '@contacts/config';
import { insertMember } from '@contacts/db';
import { encodeCursor } from '@contacts/schemas';
import type { Request } from 'autocannon';
import { contactIdAt, contactIdRange, createBenchDatabase, loadContacts } from './lib/database';
import { createDpopKey } from './lib/dpop';
import { type LoadResult, load } from './lib/load';
import {
  MemorySampler,
  productionEntry,
  REPOSITORY,
  residentBytes,
  type Service,
  type ServiceOptions,
  startService,
} from './lib/services';
import { formatMb, formatMs, markdownTable, percentile, type Row } from './lib/table';
import { CHANGES, changeBook, checkIncrementalSync, fullSync } from './scenarios/change-feed';
import { exportOnce } from './scenarios/export';
import { janitorScenario } from './scenarios/janitor';

/**
 * `pnpm bench [--quick] [--only 1,4] [--rounds N] [--cpu-prof api|auth|auth-memory|bare|…] [--alloc-prof …]`: the
 * product as shipped (its defaults, rate limits and metrics on) against real services in processes
 * of their own, every figure a ratio against baselines measured in the same run, alternating
 * rounds, the median round of each side reported. Writes a timestamped copy to bench/results/,
 * and, for a complete run (no --quick, --only, --rounds, --cpu-prof or --alloc-prof), bench/results/latest.md.
 */
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const argument = (name: string) => {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index === -1) return undefined;
  const arg = args[index] as string;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[index + 1];
};
const only = argument('--only')?.split(',').map(Number);
const profiled = argument('--cpu-prof');
const allocationProfiled = argument('--alloc-prof');
const runs = (scenario: number) => !only || only.includes(scenario);
const roundsOverride = argument('--rounds');

/**
 * `freshProcessRounds`: scenarios 1 and 3, whose sides run on a new process each round, take more
 * rounds than the others. Three rounds were not always enough to even out which copies drew a slow
 * process: the read's rate limits on ÷ off moved between 0.80 and 1.16 over fifteen complete runs
 * of the same code (README, Performance history), while the limiter costs 0.1 µs a request.
 */
const settings = {
  ...(quick
    ? {
        duration: 2,
        warmup: 1,
        rounds: 1,
        freshProcessRounds: 1,
        connections: 16,
        revocations: 30,
        coldStarts: 1,
        listDuration: 2,
      }
    : {
        duration: 8,
        warmup: 2,
        rounds: 3,
        freshProcessRounds: 5,
        connections: 16,
        revocations: 200,
        coldStarts: 3,
        listDuration: 5,
      }),
  ...(roundsOverride
    ? { rounds: Math.max(1, Number(roundsOverride)), freshProcessRounds: Math.max(1, Number(roundsOverride)) }
    : {}),
};
/**
 * The rate limits stay on, as shipped, with limits no load here reaches: one token sends thousands
 * of requests a second, and the limiter does the same work whatever the limit is.
 */
const UNREACHED_LIMIT = '100000000';
const SIZES = [1_000, 100_000, 1_000_000] as const;
const RSS_LABELS = {
  api: 'contacts-api',
  auth: 'auth (PostgreSQL adapter)',
  'auth-memory': 'auth (in-memory adapter)',
  'plain-oidc': 'plain oidc-provider (in-memory adapter)',
} as const;
const POOL = '10';

const resultsDir = path.join(REPOSITORY, 'bench', 'results');
const profileDir = path.join(resultsDir, 'profiles');
const ALLOCATION_SAMPLER = path.join(REPOSITORY, 'bench', 'src', 'lib', 'allocation-sampler.mjs');
/** The service's environment plus where allocation-sampler.mjs writes its profile. */
const withAllocationProfileDir = (env: ServiceOptions['env']): ServiceOptions['env'] =>
  typeof env === 'function'
    ? (url: string) => ({ ...env(url), ALLOCATION_PROFILE_DIR: profileDir })
    : { ...env, ALLOCATION_PROFILE_DIR: profileDir };
const logDir = await mkdtemp(path.join(tmpdir(), 'contacts-bench-logs-'));
const startedAt = new Date();
const wallClock = performance.now();
const log = (message: string) =>
  process.stderr.write(`[bench ${((performance.now() - wallClock) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);

const rows: Row[] = [];
const notes: string[] = [];
const unexpectedSeen = new Set<string>();
/** An answer that invalidates a run: noted once per scenario (autocannon counts the non-2xx). */
const unexpected = (scenario: string, detail: string) => {
  if (unexpectedSeen.has(scenario)) return;
  unexpectedSeen.add(scenario);
  notes.push(`${scenario}: unexpected answer ${detail.slice(0, 200)}`);
};
const services: Service[] = [];
const sampler = new MemorySampler(() => services);

log(`${quick ? 'quick' : 'full'} run; service logs in ${logDir}`);
const database = await createBenchDatabase(process.env);
log(`database on PostgreSQL ${database.version} (${database.serverKind})`);

try {
  const secrets = await generateSecrets();
  const serviceEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    ...(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
    DATABASE_URL: database.url,
    DB_POOL_MAX: POOL,
    API_RATE_LIMIT: UNREACHED_LIMIT,
    TOKEN_RATE_LIMIT: UNREACHED_LIMIT,
    // Scenario 6 shows 600 revoked tokens from this one address (see the report's header).
    API_INVALID_TOKEN_LIMIT: UNREACHED_LIMIT,
    // No timer passes (see the report's header): scenario 9 runs and measures the pass itself.
    JANITOR_INTERVAL: '0',
    DATA_DIR: logDir,
    COOKIE_KEYS: secrets.cookieKeys.join(','),
    JWKS: JSON.stringify(secrets.jwks),
    INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
    INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecrets.join(','),
  };
  // Every service runs as its start script runs it (bundle and node flags); the bench's runners too.
  const authEntry = productionEntry('auth');
  const apiEntry = productionEntry('contacts-api');
  const flagsOf = (script: string) => (script === apiEntry.script ? apiEntry.nodeFlags : authEntry.nodeFlags);
  const start = async (options: Omit<ServiceOptions, 'logDir' | 'nodeFlags'>, profileName = options.name) => {
    const profiling = [
      ...(profiled === profileName ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(allocationProfiled === profileName ? ['--import', ALLOCATION_SAMPLER] : []),
    ];
    if (profiling.length > 0) await mkdir(profileDir, { recursive: true });
    const env = allocationProfiled === profileName ? withAllocationProfileDir(options.env) : options.env;
    const service = await startService({
      ...options,
      env,
      logDir,
      nodeFlags: [...flagsOf(options.script), ...profiling],
    });
    services.push(service);
    return service;
  };

  // --- data ---------------------------------------------------------------------------------
  const { db } = database;
  const member = async (name: string) =>
    insertMember(db, { email: `${name}@bench.test`, name, password_hash: 'not-a-hash' });
  const owner = await member('owner');
  const reader = await member('reader'); // scenarios 1, 2 and the 1k list of scenario 7
  const writer = await member('writer'); // scenario 3 (its list grows)
  const big = await member('big'); // 1M (scenarios 7 and 10)
  const medium = await member('medium'); // 100k (scenarios 7 and 12)
  const syncer = await member('syncer'); // the 1k book of scenario 10 (it changes)
  const batcher = await member('batcher'); // scenario 11 (its book grows)
  const app = await registerClient(db, {
    ownerId: owner.id,
    name: 'Bench app',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  const appAuthorization = `Basic ${Buffer.from(`${encodeURIComponent(app.client_id)}:${encodeURIComponent(app.client_secret as string)}`).toString('base64')}`;
  const listMembers = new Map<number, number>([[SIZES[0], reader.id]]);
  const loadStarted = performance.now();
  if (runs(7)) {
    listMembers.set(SIZES[1], medium.id);
    listMembers.set(SIZES[2], big.id);
  }
  const loads = new Map<number, number>();
  for (const [size, memberId] of listMembers) loads.set(memberId, size);
  if (runs(10)) loads.set(big.id, SIZES[2]).set(syncer.id, SIZES[0]);
  if (runs(12)) loads.set(medium.id, SIZES[1]);
  await loadContacts(db, loads);
  const readerIds = await contactIdRange(db, reader.id);
  log(`contacts loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

  // --- 8b: cold start to ready (before any load, on a quiet machine) --------------------------
  const authPg = await start(
    {
      name: 'auth',
      script: 'bench/dist/auth.js',
      env: (url) => ({ ...serviceEnv, PUBLIC_URL: url }),
      readyPath: '/readyz',
    },
    'auth',
  );
  if (runs(8)) {
    const entries = [
      { name: 'auth', script: authEntry.script, readyPath: '/readyz' },
      { name: 'contacts-api', script: apiEntry.script, readyPath: '/readyz' },
      { name: 'bare', script: 'bench/dist/bare.js', readyPath: '/healthz' },
    ];
    const times = new Map<string, number[]>();
    for (let attempt = 0; attempt < settings.coldStarts; attempt++) {
      for (const entry of entries) {
        const service = await startService({
          ...entry,
          nodeFlags: flagsOf(entry.script),
          name: `cold-${entry.name}`,
          env: (url) => ({ ...serviceEnv, AUTH_INTERNAL_URL: authPg.url, PUBLIC_URL: url }),
          logDir,
        });
        await service.stop();
        times.set(entry.name, [...(times.get(entry.name) ?? []), service.startMs]);
      }
    }
    const bare = percentile(times.get('bare') ?? [], 0.5);
    for (const entry of entries) {
      const list = times.get(entry.name) ?? [];
      const median = percentile(list, 0.5);
      rows.push({
        scenario:
          entry.name === 'bare'
            ? '  baseline: bare Koa + pg, spawn → /healthz'
            : `8. cold start ${entry.name} (${entry.script}), spawn → /readyz`,
        p50: formatMs(median),
        p99: formatMs(Math.max(...list)),
        ...(entry.name === 'bare' ? {} : { ratio: median / bare, target: 'informational' }),
      });
    }
    log('cold starts measured');
  }

  // --- the services under load ------------------------------------------------------------------
  // PUBLIC_URL is the address the bench's clients use, as in a deployment: DPoP proofs name it (htu).
  type StartOptions = Parameters<typeof start>[0];
  const apiOptions = (name: string, env: NodeJS.ProcessEnv = {}): StartOptions => ({
    name,
    script: apiEntry.script,
    env: (url) => ({ ...serviceEnv, AUTH_INTERNAL_URL: authPg.url, PUBLIC_URL: url, ...env }),
    readyPath: '/readyz',
  });
  const bareOptions: StartOptions = {
    name: 'bare',
    script: 'bench/dist/bare.js',
    env: { ...serviceEnv },
    readyPath: '/healthz',
  };
  const bareHttpOptions: StartOptions = {
    name: 'bare-http',
    script: 'bench/dist/bare-http.js',
    env: { ...serviceEnv },
    readyPath: '/healthz',
  };
  // The same statements behind Koa alone: what the framework the API is built on costs.
  const bareKoaOptions: StartOptions = {
    name: 'bare-koa',
    script: 'bench/dist/bare-http.js',
    env: { ...serviceEnv, BARE_FRAMEWORK: 'koa' },
    readyPath: '/healthz',
  };
  const startApi = (name: string) => start(apiOptions(name));
  const api = await startApi('api');
  const bare = await start(bareOptions);
  /** Extra processes live only for the scenarios that need them (their RSS samples stay). */
  const retire = async (service: Service | undefined) => {
    if (!service) return;
    services.splice(services.indexOf(service), 1);
    await service.stop();
  };
  /**
   * A side measured on a process of its own, new every round. Identical copies of one service,
   * loaded in the same rounds, differ by up to a quarter in requests/s, and a copy keeps its
   * speed for its whole life (2026-11-24: three copies each of the API with its rate limit on and
   * off, five rounds: two pairs within 1 % of each other, one copy 24 % slower in every round).
   * With one long-lived process per side, a ratio measured which copy drew the short straw; a new
   * process each round draws again, and the median round evens it out.
   */
  const onFreshProcess =
    (options: StartOptions, measure: (service: Service) => Promise<LoadResult>) => async (): Promise<LoadResult> => {
      const service = await start(options);
      try {
        return await measure(service);
      } finally {
        await retire(service);
      }
    };
  log(`services up: ${services.map((service) => `${service.name} pid ${service.pid}`).join(', ')}`);

  const mint = async (
    auth: Service,
    request: {
      kind: 'personal' | 'access' | 'refresh';
      memberId: number;
      clientId?: string;
      count?: number;
      /** Access tokens: DPoP-bound to this key thumbprint. */
      jkt?: string;
    },
  ): Promise<string[]> => {
    const response = await fetch(`${auth.url}/__bench/mint`, { method: 'POST', body: JSON.stringify(request) });
    if (!response.ok) throw new Error(`mint failed: ${await response.text()}`);
    return ((await response.json()) as { tokens: string[] }).tokens;
  };
  const [readerToken] = await mint(authPg, { kind: 'personal', memberId: reader.id });
  const [writerToken] = await mint(authPg, { kind: 'personal', memberId: writer.id });

  /** The round whose requests/s is the median of a side's rounds (the lower middle of an even count). */
  const medianRound = (results: readonly LoadResult[]): LoadResult =>
    [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[
      Math.floor((results.length - 1) / 2)
    ] as LoadResult;
  /**
   * Every side once a round, the order reversed each round so that no side always runs first or
   * last; each side's median round counts.
   */
  const compare = async <Side extends string>(
    phase: string,
    sides: Record<Side, () => Promise<LoadResult>>,
    rounds = settings.rounds,
  ): Promise<Record<Side, LoadResult>> => {
    const names = Object.keys(sides) as Side[];
    const results = new Map<Side, LoadResult[]>(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? names : [...names].reverse()) {
        sampler.phase = `${phase}:${side}`;
        const result = await sides[side]();
        sampler.phase = 'idle';
        if (result.failures > 0)
          notes.push(`${phase} ${side} round ${round + 1}: ${result.failures} failed requests (of ${result.requests})`);
        results.get(side)?.push(result);
      }
    }
    return Object.fromEntries(names.map((name) => [name, medianRound(results.get(name) ?? [])])) as Record<
      Side,
      LoadResult
    >;
  };
  interface Baseline {
    side: string;
    label: string;
    /** The least subject ÷ baseline ratio wanted; none: informational. */
    target?: number;
  }
  /**
   * The subject's row (its ratio against the first baseline, the ceiling) and one row per baseline;
   * the further baselines carry the subject's ratio against them.
   */
  const comparisonRows = (label: string, results: Record<string, LoadResult>, baselines: Baseline[]) => {
    const subject = results.subject as LoadResult;
    const figures = (result: LoadResult) => ({
      requestsPerSecond: result.requestsPerSecond,
      p50: formatMs(result.p50),
      p99: formatMs(result.p99),
      cpu: result.cpu,
    });
    const ratioAgainst = (baseline: Baseline) => {
      const ratio = subject.requestsPerSecond / (results[baseline.side] as LoadResult).requestsPerSecond;
      return baseline.target === undefined
        ? { ratio, target: 'informational' }
        : { ratio, target: `≥ ${baseline.target}`, met: ratio >= baseline.target };
    };
    const [ceiling, ...others] = baselines as [Baseline, ...Baseline[]];
    rows.push(
      { scenario: label, ...figures(subject), ...ratioAgainst(ceiling) },
      { scenario: `  baseline: ${ceiling.label}`, ...figures(results[ceiling.side] as LoadResult) },
      ...others.map((baseline) => ({
        scenario: `  baseline: ${baseline.label}`,
        ...figures(results[baseline.side] as LoadResult),
        ...ratioAgainst(baseline),
      })),
    );
  };
  const loadOptions = (
    service: Service,
    requests: Request[],
    overrides: { connections?: number; duration?: number } = {},
  ) => ({
    url: service.url,
    pid: service.pid,
    requests,
    connections: overrides.connections ?? settings.connections,
    durationSeconds: overrides.duration ?? settings.duration,
    warmupSeconds: settings.warmup,
  });
  const bearer = (token: string | undefined) => ({ authorization: `Bearer ${token}` });
  const randomReaderContact = () =>
    readerIds.first + Math.floor(Math.random() * (readerIds.last - readerIds.first + 1));

  // --- 1. one contact, warm introspection cache ---------------------------------------------
  if (runs(1)) {
    const request = (headers: Record<string, string>): Request[] => [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: `/v4/contacts/${randomReaderContact()}`, headers }),
      },
    ];
    const asMember = (service: Service) => load(loadOptions(service, request({ 'x-member': String(reader.id) })));
    const asReader = (service: Service) => load(loadOptions(service, request(bearer(readerToken))));
    const result = await compare(
      's1',
      {
        'bare-http': onFreshProcess(bareHttpOptions, asMember),
        subject: onFreshProcess(apiOptions('api'), asReader),
        // The same service with its rate limit off: what the limiter costs on the hot path.
        'api-no-limit': onFreshProcess(apiOptions('api-no-limit', { API_RATE_LIMIT: '0' }), asReader),
        'bare-koa': onFreshProcess(bareKoaOptions, asMember),
        bare: onFreshProcess(bareOptions, asMember),
      },
      settings.freshProcessRounds,
    );
    comparisonRows('1. GET /v4/contacts/{id}, defaults, warm token', result, [
      { side: 'bare-http', label: 'bare node:http + pg, same query as a named prepared statement', target: 0.8 },
      { side: 'api-no-limit', label: 'contacts-api with API_RATE_LIMIT=0 (rate limits on ÷ off)', target: 0.9 },
      { side: 'bare-koa', label: 'bare Koa + pg, same prepared statement (the framework alone)' },
      { side: 'bare', label: 'bare Koa + pg, same query (the earlier baseline)' },
    ]);
    log('1 done');
  }

  // --- 2. a page of 100 ------------------------------------------------------------------------
  if (runs(2)) {
    const result = await compare('s2', {
      bare: () =>
        load(loadOptions(bare, [{ method: 'GET', path: '/v4/contacts', headers: { 'x-member': String(reader.id) } }])),
      subject: () =>
        load(loadOptions(api, [{ method: 'GET', path: '/v4/contacts?limit=100', headers: bearer(readerToken) }])),
    });
    comparisonRows('2. GET /v4/contacts (page of 100), defaults', result, [
      { side: 'bare', label: 'bare Koa + pg, same query', target: 0.8 },
    ]);
    log('2 done');
  }

  // --- 3. create (JSON) ------------------------------------------------------------------------
  if (runs(3)) {
    let sequence = 0;
    const request = (headers: Record<string, string>): Request[] => [
      {
        method: 'POST',
        path: '/v4/contacts',
        setupRequest: (req) => {
          sequence += 1;
          return {
            ...req,
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({
              name: `Created ${sequence}`,
              email: `created-${sequence}@example.test`,
              company_name: 'Acme',
              city: 'Lyon',
            }),
          };
        },
      },
    ];
    const asMember = (service: Service) => load(loadOptions(service, request({ 'x-member': String(writer.id) })));
    const result = await compare(
      's3',
      {
        'bare-http': onFreshProcess(bareHttpOptions, asMember),
        subject: onFreshProcess(apiOptions('api'), (service) =>
          load(loadOptions(service, request(bearer(writerToken)))),
        ),
        'bare-koa': onFreshProcess(bareKoaOptions, asMember),
        bare: onFreshProcess(bareOptions, asMember),
      },
      settings.freshProcessRounds,
    );
    comparisonRows('3. POST /v4/contacts (JSON), defaults', result, [
      { side: 'bare-http', label: 'bare node:http + pg, same INSERT as a named prepared statement', target: 0.8 },
      { side: 'bare-koa', label: 'bare Koa + pg, same prepared INSERT (the framework alone)' },
      { side: 'bare', label: 'bare Koa + pg, one INSERT (the earlier baseline)' },
    ]);
    log('3 done');
  }

  // The auth baselines of scenarios 4 and 5, up only while those run.
  const authMemory =
    runs(4) || runs(5)
      ? await start({
          name: 'auth-memory',
          script: 'bench/dist/auth.js',
          env: (url) => ({ ...serviceEnv, BENCH_ADAPTER: 'memory', PUBLIC_URL: url }),
          readyPath: '/readyz',
        })
      : undefined;
  const plainOidc =
    runs(4) || runs(5)
      ? await start({
          name: 'plain-oidc',
          script: 'bench/dist/plain-oidc.js',
          env: {
            ...serviceEnv,
            BENCH_APP_CLIENT_ID: app.client_id,
            BENCH_APP_CLIENT_SECRET: app.client_secret as string,
          },
          readyPath: '/healthz',
        })
      : undefined;

  // --- 4. introspection: PostgreSQL adapter vs the library's ceiling---------------------------------------
  const introspectionAuthorization = `Basic ${Buffer.from(`${encodeURIComponent(secrets.introspectionClientId)}:${encodeURIComponent(secrets.introspectionClientSecrets[0] ?? '')}`).toString('base64')}`;
  if (runs(4) && authMemory && plainOidc) {
    const request = async (auth: Service): Promise<Request[]> => {
      const tokens = await mint(auth, { kind: 'access', memberId: reader.id, clientId: app.client_id, count: 50 });
      return [
        {
          method: 'POST',
          path: '/oauth/introspect',
          setupRequest: (req) => ({
            ...req,
            headers: {
              authorization: introspectionAuthorization,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: new URLSearchParams({
              token: tokens[Math.floor(Math.random() * tokens.length)] as string,
              token_type_hint: 'access_token',
            }).toString(),
          }),
          onResponse: (status, body) => {
            if (status !== 200 || !body.includes('"active":true')) unexpected('4', `${status} ${body}`);
          },
        },
      ];
    };
    const plainRequests = await request(plainOidc);
    const memoryRequests = await request(authMemory);
    const pgRequests = await request(authPg);
    const result = await compare('s4', {
      'plain-oidc': () => load(loadOptions(plainOidc, plainRequests)),
      subject: () => load(loadOptions(authPg, pgRequests)),
      'auth-memory': () => load(loadOptions(authMemory, memoryRequests)),
    });
    comparisonRows('4. POST /oauth/introspect, PostgreSQL adapter, defaults', result, [
      {
        side: 'plain-oidc',
        label: 'plain oidc-provider, its defaults, in-memory adapter, static clients',
        target: 0.6,
      },
      { side: 'auth-memory', label: 'same provider configuration, in-memory adapter (the earlier baseline)' },
    ]);
    log('4 done');
  }

  // --- 5. refresh grant with rotation ----------------------------------------------------------
  if (runs(5) && authMemory && plainOidc) {
    const chains = async (auth: Service): Promise<Request[]> => {
      // Rotation: each answer carries the next refresh token of its chain, which goes back on the
      // stack (autocannon's per-connection context is reset after every request of a one-request list).
      const perRun = settings.connections;
      const ready = await mint(auth, {
        kind: 'refresh',
        memberId: reader.id,
        clientId: app.client_id,
        count: perRun * (3 + 2 * settings.rounds),
      });
      return [
        {
          method: 'POST',
          path: '/oauth/token',
          setupRequest: (req) => ({
            ...req,
            headers: { authorization: appAuthorization, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(ready.pop()) }).toString(),
          }),
          onResponse: (status, body) => {
            if (status !== 200) return unexpected('5', `${status} ${body}`);
            ready.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
          },
        },
      ];
    };
    // The same service with its token-endpoint rate limit off: what the limiter costs there.
    const authNoLimit = await start({
      name: 'auth-no-limit',
      script: 'bench/dist/auth.js',
      env: (url) => ({ ...serviceEnv, TOKEN_RATE_LIMIT: '0', PUBLIC_URL: url }),
      readyPath: '/readyz',
    });
    const plainRequests = await chains(plainOidc);
    const memoryRequests = await chains(authMemory);
    const pgRequests = await chains(authPg);
    const noLimitRequests = await chains(authNoLimit);
    const result = await compare('s5', {
      'plain-oidc': () => load(loadOptions(plainOidc, plainRequests)),
      subject: () => load(loadOptions(authPg, pgRequests)),
      'auth-no-limit': () => load(loadOptions(authNoLimit, noLimitRequests)),
      'auth-memory': () => load(loadOptions(authMemory, memoryRequests)),
    });
    await retire(authNoLimit);
    comparisonRows('5. refresh grant with rotation, PostgreSQL adapter, defaults', result, [
      {
        side: 'plain-oidc',
        label: 'plain oidc-provider, its defaults, in-memory adapter, static clients',
        target: 0.35,
      },
      { side: 'auth-no-limit', label: 'auth with TOKEN_RATE_LIMIT=0 (rate limits on ÷ off)', target: 0.9 },
      { side: 'auth-memory', label: 'same provider configuration, in-memory adapter (the earlier baseline)' },
    ]);
    log('5 done');
  }
  await retire(plainOidc);
  await retire(authMemory);

  // --- 6. revocation propagation to 3 contacts-api processes ------------------------------------
  if (runs(6)) {
    // Two more replicas of the contacts API, up only for this scenario.
    const apis = [api, await startApi('api-2'), await startApi('api-3')];
    sampler.phase = 's6';
    const tokens = await mint(authPg, {
      kind: 'access',
      memberId: reader.id,
      clientId: app.client_id,
      count: settings.revocations,
    });
    const path = `/v4/contacts/${readerIds.first}`;
    const get = async (service: Service, token: string) => {
      const response = await fetch(`${service.url}${path}`, { headers: bearer(token) });
      await response.arrayBuffer();
      return response.status;
    };
    const untilRefused = async (service: Service, token: string, since: number) => {
      for (let attempt = 0; attempt < 10_000; attempt++) {
        const status = await get(service, token);
        if (status === 401) return performance.now() - since;
        if (status !== 200) throw new Error(`unexpected ${status} while waiting for refusal`);
      }
      throw new Error('the revoked token was never refused');
    };
    const everywhere: number[] = [];
    const perProcess: number[] = [];
    const warmGets: number[] = [];
    for (const token of tokens) {
      for (const service of apis)
        if ((await get(service, token)) !== 200) throw new Error('token refused before revocation');
      for (const service of apis) {
        const began = performance.now();
        await get(service, token);
        warmGets.push(performance.now() - began);
      }
      const response = await fetch(`${authPg.url}/oauth/revoke`, {
        method: 'POST',
        headers: { authorization: appAuthorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`revocation answered ${response.status}`);
      const returned = performance.now();
      const latencies = await Promise.all(apis.map((service) => untilRefused(service, token, returned)));
      perProcess.push(...latencies);
      everywhere.push(Math.max(...latencies));
    }
    sampler.phase = 'idle';
    const p99 = percentile(everywhere, 0.99);
    const warmP99 = percentile(warmGets, 0.99);
    rows.push(
      {
        scenario: `6. revocation → refused on all 3 contacts-api processes (${tokens.length} tokens)`,
        p50: formatMs(percentile(everywhere, 0.5)),
        p99: formatMs(p99),
        ratio: p99 / warmP99,
        target: 'p99 < 100 ms',
        met: p99 < 100,
      },
      {
        scenario: '  per process',
        p50: formatMs(percentile(perProcess, 0.5)),
        p99: formatMs(percentile(perProcess, 0.99)),
      },
      {
        scenario: '  baseline: one warm GET /v4/contacts/{id}',
        p50: formatMs(percentile(warmGets, 0.5)),
        p99: formatMs(warmP99),
      },
    );
    for (const replica of apis.slice(1)) await retire(replica);
    log('6 done');
  }

  // --- 7. list latency by address-book size --------------------------------------------------------
  if (runs(7)) {
    const pages = new Map<string, string>();
    for (const size of SIZES) {
      const memberId = listMembers.get(size) as number;
      const token = (await mint(authPg, { kind: 'personal', memberId }))[0] as string;
      const deep = await contactIdAt(db, memberId, Math.floor(size * 0.9));
      pages.set(`${size}:first:token`, token);
      pages.set(`${size}:first`, '/v4/contacts?limit=100');
      pages.set(
        `${size}:deep`,
        `/v4/contacts?limit=100&cursor=${encodeURIComponent(encodeCursor({ after_id: deep }))}`,
      );
    }
    const results = new Map<string, LoadResult[]>();
    const connections = 8;
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? [...SIZES] : [...SIZES].reverse();
      for (const size of order) {
        for (const page of ['first', 'deep'] as const) {
          sampler.phase = `s7:${size}:${page}`;
          const result = await load(
            loadOptions(
              api,
              [
                {
                  method: 'GET',
                  path: pages.get(`${size}:${page}`),
                  headers: bearer(pages.get(`${size}:first:token`)),
                },
              ],
              { connections, duration: settings.listDuration },
            ),
          );
          sampler.phase = 'idle';
          if (result.failures > 0) notes.push(`7 ${size} ${page}: ${result.failures} failed requests`);
          const key = `${size}:${page}`;
          results.set(key, [...(results.get(key) ?? []), result]);
        }
      }
    }
    for (const page of ['first', 'deep'] as const) {
      const reference = medianRound(results.get(`${SIZES[0]}:${page}`) ?? []);
      for (const size of SIZES) {
        const result = medianRound(results.get(`${size}:${page}`) ?? []);
        // Time per page at a fixed concurrency: the inverse of throughput (autocannon's latency is whole ms).
        const ratio = reference.requestsPerSecond / result.requestsPerSecond;
        const label = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1_000}k`;
        rows.push({
          scenario: `7. list, ${label} contacts, ${page === 'first' ? 'first page' : 'deep cursor (90 %)'}`,
          requestsPerSecond: result.requestsPerSecond,
          p50: formatMs(result.p50),
          p99: formatMs(result.p99),
          cpu: result.cpu,
          ...(size === SIZES[0]
            ? {}
            : {
                ratio,
                target: size === SIZES[2] ? '≤ 1.2 × 1k' : 'informational',
                ...(size === SIZES[2] ? { met: ratio <= 1.2 } : {}),
              }),
        });
      }
    }
    log('7 done');
  }

  // --- 10. incremental sync after 100 changes, 1M contacts against 1k ----------------------------
  if (runs(10)) {
    const prepared = new Map<string, { token: string; path: string }>();
    for (const [label, memberId] of [
      ['1k', syncer.id],
      ['1M', big.id],
    ] as const) {
      const token = (await mint(authPg, { kind: 'personal', memberId }))[0] as string;
      // The honest way to a sync token: a full sync, once, untimed by the comparison below.
      sampler.phase = `s10:full:${label}`;
      const full = await fullSync(api.url, token);
      sampler.phase = 'idle';
      rows.push({
        scenario: `10. full sync (no sync_token), ${label} contacts, ${full.pages} pages of 1000, once`,
        p50: formatMs(full.ms),
        target: 'informational',
      });
      await changeBook(api.url, token, await contactIdRange(db, memberId));
      const path = `/v4/contacts/changes?sync_token=${encodeURIComponent(full.syncToken)}`;
      await checkIncrementalSync(api.url, token, path);
      prepared.set(label, { token, path });
    }
    // Every request is the same incremental sync (the token does not change on the server's
    // side), so each one does the work of a client syncing after 100 changes.
    const syncRequest = (label: string): Request[] => {
      const { token, path } = prepared.get(label) as { token: string; path: string };
      return [
        {
          method: 'GET',
          path,
          headers: bearer(token),
          onResponse: (status, body) => {
            if (status !== 200) unexpected('10', `${status} ${body}`);
          },
        },
      ];
    };
    const small = syncRequest('1k');
    const large = syncRequest('1M');
    const options = { connections: 8, duration: settings.listDuration };
    const result = await compare('s10', {
      '1k': () => load(loadOptions(api, small, options)),
      subject: () => load(loadOptions(api, large, options)),
    });
    // Time per sync at a fixed concurrency: the inverse of throughput, as in scenario 7.
    const ratio = (result['1k'] as LoadResult).requestsPerSecond / result.subject.requestsPerSecond;
    rows.push(
      {
        scenario: `10. incremental sync after ${CHANGES} changes (GET /v4/contacts/changes?sync_token), 1M contacts`,
        requestsPerSecond: result.subject.requestsPerSecond,
        p50: formatMs(result.subject.p50),
        p99: formatMs(result.subject.p99),
        cpu: result.subject.cpu,
        ratio,
        target: '≤ 1.2 × 1k',
        met: ratio <= 1.2,
      },
      {
        scenario: `  baseline: the same sync, 1k contacts`,
        requestsPerSecond: (result['1k'] as LoadResult).requestsPerSecond,
        p50: formatMs((result['1k'] as LoadResult).p50),
        p99: formatMs((result['1k'] as LoadResult).p99),
        cpu: (result['1k'] as LoadResult).cpu,
      },
    );
    log('10 done');
  }

  // --- 11. a batch of 200 creates against 200 single creates -------------------------------------
  if (runs(11)) {
    const [batcherToken] = await mint(authPg, { kind: 'personal', memberId: batcher.id });
    const BATCH = 200;
    let sequence = 0;
    const contact = () => {
      sequence += 1;
      return {
        name: `Batched ${sequence}`,
        email: `batched-${sequence}@example.test`,
        company_name: 'Acme',
        city: 'Lyon',
      };
    };
    const headers = { ...bearer(batcherToken), 'content-type': 'application/json' };
    const batchBody = () =>
      JSON.stringify({ operations: Array.from({ length: BATCH }, () => ({ op: 'create', contact: contact() })) });
    const probe = await fetch(`${api.url}/v4/contacts/batch`, { method: 'POST', headers, body: batchBody() });
    const probed = (await probe.json()) as { data?: unknown[] };
    if (probe.status !== 200 || probed.data?.length !== BATCH) {
      throw new Error(`a batch of ${BATCH} creates answered ${probe.status} with ${probed.data?.length} results`);
    }
    const single: Request[] = [
      {
        method: 'POST',
        path: '/v4/contacts',
        setupRequest: (req) => ({ ...req, headers, body: JSON.stringify(contact()) }),
      },
    ];
    const batch: Request[] = [
      {
        method: 'POST',
        path: '/v4/contacts/batch',
        setupRequest: (req) => ({ ...req, headers, body: batchBody() }),
      },
    ];
    const result = await compare('s11', {
      single: () => load(loadOptions(api, single)),
      subject: () => load(loadOptions(api, batch)),
    });
    const batchRate = result.subject.requestsPerSecond * BATCH;
    const singleRate = (result.single as LoadResult).requestsPerSecond;
    rows.push(
      {
        scenario: `11. POST /v4/contacts/batch, ${BATCH} creates each (requests/s column: contacts/s)`,
        requestsPerSecond: batchRate,
        p50: formatMs(result.subject.p50),
        p99: formatMs(result.subject.p99),
        ratio: batchRate / singleRate,
        target: '≥ 5',
        met: batchRate / singleRate >= 5,
      },
      {
        scenario: '  baseline: POST /v4/contacts, one create each (contacts/s)',
        requestsPerSecond: singleRate,
        p50: formatMs((result.single as LoadResult).p50),
        p99: formatMs((result.single as LoadResult).p99),
      },
    );
    log('11 done');
  }

  // --- 12. vCard export of 100k contacts: time and the API's peak RSS ------------------------------
  if (runs(12)) {
    const token = (await mint(authPg, { kind: 'personal', memberId: medium.id }))[0] as string;
    const before = (await residentBytes(api.pid)) ?? Number.NaN;
    const times: number[] = [];
    let size = 0;
    for (let round = 0; round < settings.rounds; round++) {
      sampler.phase = 's12:export';
      const run = await exportOnce(api.url, token);
      // One sample more at the very end, in case the export was shorter than the sampling period.
      await sampler.sampleNow();
      sampler.phase = 'idle';
      if (run.cards !== SIZES[1]) throw new Error(`the export held ${run.cards} cards, not ${SIZES[1]}`);
      times.push(run.ms);
      size = run.bytes;
    }
    const samples = sampler.during('api', (phase) => phase === 's12:export');
    const peak = Math.max(...samples);
    rows.push(
      {
        scenario: `12. GET /v4/contacts/export, 100k contacts (${formatMb(size)} of vCard), time per export`,
        p50: formatMs(percentile(times, 0.5)),
        p99: formatMs(Math.max(...times)),
        target: 'informational',
      },
      {
        scenario: `12. contacts-api RSS during the export (${samples.length} samples)`,
        p50: formatMb(percentile(samples, 0.5)),
        p99: `${formatMb(peak)} peak`,
        ratio: peak / before,
        target: '< 200 MB',
        met: peak < 200 * 1024 * 1024,
      },
      { scenario: '  baseline: contacts-api RSS just before the export', p50: formatMb(before) },
    );
    log('12 done');
  }

  // --- 13. a DPoP read against a Bearer read ------------------------------------------------------
  if (runs(13)) {
    const key = await createDpopKey();
    const [dpopToken] = await mint(authPg, {
      kind: 'access',
      memberId: reader.id,
      clientId: app.client_id,
      jkt: key.jkt,
    });
    const [bearerToken] = await mint(authPg, { kind: 'access', memberId: reader.id, clientId: app.client_id });
    const accessToken = dpopToken as string;
    const dpopHeaders = (path: string) => ({
      authorization: `DPoP ${accessToken}`,
      dpop: key.proof({ method: 'GET', url: `${api.url}${path}`, accessToken }),
    });
    // Before measuring: the proofs verify with jose, the API accepts them, and the token is bound.
    const probePath = `/v4/contacts/${readerIds.first}`;
    await key.selfCheck({ method: 'GET', url: `${api.url}${probePath}`, accessToken });
    const statusOf = async (headers: Record<string, string>) => {
      const response = await fetch(`${api.url}${probePath}`, { headers });
      await response.arrayBuffer();
      return response.status;
    };
    const accepted = await statusOf(dpopHeaders(probePath));
    const asBearer = await statusOf(bearer(accessToken));
    if (accepted !== 200 || asBearer !== 401) {
      throw new Error(`DPoP read answered ${accepted}, the bound token as Bearer ${asBearer} (wanted 200 and 401)`);
    }
    const read = (headers: (path: string) => Record<string, string>): Request[] => [
      {
        method: 'GET',
        setupRequest: (req) => {
          const path = `/v4/contacts/${randomReaderContact()}`;
          return { ...req, path, headers: headers(path) };
        },
      },
    ];
    const result = await compare('s13', {
      bearer: () =>
        load(
          loadOptions(
            api,
            read(() => bearer(bearerToken)),
          ),
        ),
      subject: () => load(loadOptions(api, read(dpopHeaders))),
    });
    comparisonRows('13. GET /v4/contacts/{id}, DPoP-bound token, a fresh proof per request', result, [
      { side: 'bearer', label: 'the same read, a Bearer access token of the same client' },
    ]);
    log('13 done');
  }

  // --- 8a. resident memory under load ---------------------------------------------------------------
  if (runs(8)) {
    // A phase is `s1:subject`, `s1:bare`, `s7:1000:first`…: matched whole or up to a colon.
    const loaded = (phases: readonly string[], name: string) =>
      sampler.during(name, (phase) => phases.some((wanted) => phase === wanted || phase.startsWith(`${wanted}:`)));
    const underLoad = loaded(['s1:bare', 's2:bare', 's3:bare'], 'bare');
    // Without scenarios 1-3 the bare server was never loaded: its idle size is the baseline then.
    const baseline = underLoad.length > 0 ? underLoad : sampler.during('bare', () => true);
    const baselinePeak = baseline.length > 0 ? Math.max(...baseline) : Number.NaN;
    for (const [name, prefixes] of [
      ['api', ['s1:subject', 's2:subject', 's3:subject', 's6', 's7', 's10', 's11', 's13']],
      ['auth', ['s4:subject', 's5:subject', 's6']],
      ['auth-memory', ['s4:auth-memory', 's5:auth-memory']],
      ['plain-oidc', ['s4:plain-oidc', 's5:plain-oidc']],
    ] as const) {
      const samples = loaded(prefixes, name);
      if (samples.length === 0) continue;
      const peak = Math.max(...samples);
      rows.push({
        scenario: `8. RSS under load, ${RSS_LABELS[name]}`,
        p50: formatMb(percentile(samples, 0.5)),
        p99: `${formatMb(peak)} peak`,
        ratio: peak / baselinePeak,
        ...(name === 'api' || name === 'auth'
          ? { target: '< 200 MB', met: peak < 200 * 1024 * 1024 }
          : { target: 'informational' }),
      });
    }
    if (baseline.length > 0) {
      rows.push({
        scenario: `  baseline: bare Koa + pg${underLoad.length > 0 ? ' under load' : ', idle'}`,
        p50: formatMb(percentile(baseline, 0.5)),
        p99: `${formatMb(baselinePeak)} peak`,
      });
    }
  }

  // --- 9: the janitor (bench/src/scenarios/janitor.ts) ----------------------------------------
  if (runs(9)) {
    const startAuth = (env: NodeJS.ProcessEnv) =>
      start({
        name: 'auth-janitor',
        script: 'bench/dist/auth.js',
        env: (url) => ({ ...serviceEnv, PUBLIC_URL: url, ...env }),
        readyPath: '/readyz',
      });
    rows.push(
      ...(await janitorScenario({
        db,
        startAuth,
        memberId: owner.id,
        clientId: app.client_id,
        clientSecret: app.client_secret as string,
        rotations: quick ? 2_000 : 20_000,
        chains: settings.connections,
        log,
        notes,
      })),
    );
  }
} finally {
  sampler.stop();
  await Promise.all(services.map((service) => service.stop()));
  await database.drop();
}

// Rows are kept in scenario order regardless of the order they were measured in.
const ordered = rows
  .map((row, index) => ({ row, index, scenario: scenarioNumber(rows, index) }))
  .sort((a, b) => a.scenario - b.scenario || a.index - b.index)
  .map(({ row }) => row);

function scenarioNumber(list: Row[], index: number): number {
  for (let at = index; at >= 0; at--) {
    const match = /^(\d+)\./.exec((list[at] as Row).scenario);
    if (match) return Number(match[1]);
  }
  return 0;
}

const table = markdownTable(ordered);
const departures = [
  `API_RATE_LIMIT=${UNREACHED_LIMIT} and TOKEN_RATE_LIMIT=${UNREACHED_LIMIT} (defaults 1200 and 300 a minute): the ` +
    'limiters run and count every request as shipped, but one token here sends thousands of requests a second, ' +
    'which the default limits would refuse; the limiter does the same work whatever the limit is.',
  `API_INVALID_TOKEN_LIMIT=${UNREACHED_LIMIT} (default 600 a minute per address): scenario 6 has 200 revoked tokens ` +
    'refused by each of 3 processes, 600 invalid tokens from the one address the bench sends from, which reached the ' +
    "default and had the next scenario's new token refused (429) for a minute: 20,000-26,000 refusals in each side of " +
    'scenario 7 in the complete run of 2026-11-27 21:18. The limit counts every invalid token as shipped.',
  'The "rate limits on ÷ off" baselines run the same service with API_RATE_LIMIT=0 (scenario 1, a new process ' +
    'each round, as its other sides) or TOKEN_RATE_LIMIT=0 (scenario 5, a second process during that scenario).',
  `DB_POOL_MAX=${POOL} (the default, set explicitly so that the bare baselines use the same pool size); NODE_ENV=production; ` +
    'generated secrets (COOKIE_KEYS, JWKS, the introspection client); DATA_DIR in a temporary folder.',
  'JANITOR_INTERVAL=0 (default 600 s): scenario 9 runs one janitor pass itself, at a known moment, and measures it. ' +
    'With the timer on, each of the ~50 processes the bench starts makes its first pass at a random moment within ' +
    'its first 600 s: one fell into scenario 9 in a complete run of 2026-11-24 and took the rows its pass was to ' +
    'delete (deleted 0 in 5 ms), and any other could fall into a measured side.',
  ...(process.env.BENCH_LOG_LEVEL ? [`LOG_LEVEL=${process.env.BENCH_LOG_LEVEL} (from BENCH_LOG_LEVEL).`] : []),
  'The auth processes are bench/src/runners/auth.ts: apps/auth as its main runs it, plus POST /__bench/mint to ' +
    'issue tokens (and BENCH_ADAPTER=memory for the in-memory baseline).',
  "Baselines: bench/src/runners/bare-http.ts (node:http + pg, the API's own find and insert statements, named and " +
    'prepared), bench/src/runners/bare.ts (Koa + pg), bench/src/runners/plain-oidc.ts (oidc-provider with its defaults ' +
    'and in-memory adapter; its few departures are listed at the top of that file).',
];
const elapsed = (performance.now() - wallClock) / 1000;
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const report = [
  `# Benchmark results (${quick ? '`pnpm bench --quick`' : '`pnpm bench`'})`,
  '',
  `${startedAt.toISOString()} · ${elapsed.toFixed(0)} s · Node ${process.version} · PostgreSQL ${database.version} (${database.serverKind}) · ${cpus().length} × ${cpu}`,
  '',
  `Load: autocannon, ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s per side, ` +
    `${settings.rounds} round(s), the order of the sides reversed every round, the median round of each side reported ` +
    '(not the best); every service in a process of its own; in scenarios 1 and 3 every side runs on a new process each ' +
    `round, ${settings.freshProcessRounds} round(s) (identical copies of a service differ by up to a quarter in ` +
    'requests/s for their whole life). Ratios:' +
    ` subject ÷ baseline requests/s, on the subject's row ` +
    "against the first baseline (the ceiling), on a further baseline's row against that baseline (scenario 7: time per " +
    'page relative to the 1k member; scenario 6: p99 ÷ p99 of a warm GET; scenario 8: peak RSS or start time ÷ the ' +
    "bare Koa server's). CPU per request: the answering process's user + system CPU time over the measured window " +
    '(from /proc), and that of every PostgreSQL process on the machine, divided by the requests answered, in the ' +
    "side's median round: where a side's time goes (it moves between runs as requests/s does).",
  '',
  'The services run their production bundles with the shipped defaults (rate limits on in their default store; ' +
    'metrics on; default log level), except:',
  '',
  ...departures.map((departure) => `- ${departure}`),
  '',
  table,
  '',
  ...(notes.length > 0 ? ['Notes:', '', ...notes.map((note) => `- ${note}`), ''] : []),
].join('\n');
process.stdout.write(`\n${table}\n\n`);
for (const note of notes) process.stdout.write(`note: ${note}\n`);
await mkdir(resultsDir, { recursive: true });
const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
// Only a complete, unprofiled run replaces the committed table; partial runs keep a dated copy.
const complete = !quick && !only && !profiled && !allocationProfiled && !roundsOverride;
const dated = path.join(resultsDir, `${stamp}${quick ? '-quick' : ''}${only ? `-only-${only.join('-')}` : ''}.md`);
await writeFile(dated, report);
if (complete) await writeFile(path.join(resultsDir, 'latest.md'), report);
log(
  `written to ${path.relative(REPOSITORY, complete ? path.join(resultsDir, 'latest.md') : dated)} (${elapsed.toFixed(0)} s)`,
);
process.exit(0);
