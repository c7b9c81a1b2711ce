import { janitorSettingsFrom } from '@contacts/config';
import { type Database, RETENTION_RULES, type RetentionOptions, runJanitorPass } from '@contacts/db';
import type { Knex } from 'knex';
import type { Service } from '../lib/services';
import type { Row } from '../lib/table';

/**
 * Scenario 9, the janitor: 20,000 refresh-token rotations against an auth service whose tokens
 * live a few seconds, then, once they have expired, one janitor pass while rotations go on.
 * Reports the rows of oidc_models before and after the pass (after: what the live tokens need)
 * and the rotation rate during the pass against the mean rate of two windows without one, right
 * before and right after it, with how often autovacuum was at work on oidc_models in each.
 */
export interface JanitorScenarioOptions {
  db: Database;
  /** Starts the bench's auth runner (bench/dist/auth.js) with extra environment. */
  startAuth(env: NodeJS.ProcessEnv): Promise<Service>;
  memberId: number;
  clientId: string;
  clientSecret: string;
  rotations: number;
  /** Concurrent refresh chains. */
  chains: number;
  log(message: string): void;
  notes: string[];
}

/** Seconds tokens live in this scenario; the janitor adds its one-minute clock allowance. */
const TOKEN_TTL = 5;
/** The shipped defaults (AUDIT_RETENTION_DAYS, SYNC_TOKEN_TTL): the settings an empty environment gives. */
const { auditRetentionDays, syncTokenTtlSeconds } = janitorSettingsFrom({});
const RETENTION: RetentionOptions = { auditRetentionDays, syncTokenTtlSeconds };
const CLOCK_ALLOWANCE_SECONDS = 60;

export const janitorScenarioEnv: NodeJS.ProcessEnv = {
  ACCESS_TOKEN_TTL: String(TOKEN_TTL),
  REFRESH_TOKEN_TTL: String(TOKEN_TTL),
  // The scenario runs the pass itself, at a known moment.
  JANITOR_INTERVAL: '0',
};

export async function janitorScenario(options: JanitorScenarioOptions): Promise<Row[]> {
  const auth = await options.startAuth(janitorScenarioEnv);
  try {
    const rotate = rotator(auth.url, options.clientId, options.clientSecret);
    const mintChains = () => mintRefreshTokens(auth.url, options.memberId, options.clientId, options.chains);

    options.log(`janitor: ${options.rotations} refresh rotations on ${options.chains} chains`);
    const churn = await rotateFor(await mintChains(), rotate, { total: options.rotations });
    if (churn.failures > 0) options.notes.push(`9. janitor: ${churn.failures} rotations failed while churning`);
    // Everything churned must be past expiry (and the janitor's clock allowance) before the pass.
    await sleep((TOKEN_TTL + CLOCK_ALLOWANCE_SECONDS + 2) * 1000);
    const before = await oidcRowCounts(options.db);

    // Windows without a pass on both sides of the one with it: whatever PostgreSQL does after a
    // mass deletion (autovacuum) lands in the window after, so neither side alone is the baseline.
    const windowSeconds = 5;
    const watch = autovacuumWatch(options.db);
    const withoutBefore = await watch.during(async () =>
      rotateFor(await mintChains(), rotate, { seconds: windowSeconds }),
    );
    options.log('janitor: one pass while rotations go on');
    const during = await watch.during(async () =>
      rotateFor(await mintChains(), rotate, {
        whilePending: runJanitorPass(options.db, RETENTION),
      }),
    );
    const after = await oidcRowCounts(options.db);
    const withoutAfter = await watch.during(async () =>
      rotateFor(await mintChains(), rotate, { seconds: windowSeconds }),
    );
    const end = await oidcRowCounts(options.db);
    const withoutRate = (withoutBefore.run.rate + withoutAfter.run.rate) / 2;

    options.notes.push(
      `9. janitor: oidc_models held ${before.total} rows after ${options.rotations} rotations (${TOKEN_TTL} s TTL), ` +
        `${before.removable} of them past expiry and the janitor's minute of allowance; ${after.total} rows after one pass of ${during.run.report?.duration_ms ?? '?'} ms ` +
        `(deleted ${during.run.report?.deleted.oidc_models ?? '?'}), ${after.removable} of them past expiry and allowance; ` +
        `${end.live} rows are unexpired now (the live chains). An autovacuum worker was at work on oidc_models in ` +
        `${percent(withoutBefore.autovacuum)} of the samples before the pass, ${percent(during.autovacuum)} during it and ` +
        `${percent(withoutAfter.autovacuum)} after it (sampled every 200 ms from pg_stat_activity)`,
    );
    const deleted = during.run.report?.deleted.oidc_models ?? 0;
    if (before.removable > 0 && deleted === 0)
      options.notes.push(
        '9. janitor: the pass deleted nothing although rows were past expiry: something else deleted them first, ' +
          'so the rate "during a pass" measured no pass',
      );
    const ratio = during.run.rate / withoutRate;
    return [
      {
        scenario: `9. janitor: refresh rotation during a pass (${during.run.rotations} rotations in ${during.run.seconds.toFixed(1)} s)`,
        requestsPerSecond: during.run.rate,
        ratio,
        target: '≥ 0.9',
        met: ratio >= 0.9,
      },
      {
        scenario: '  baseline: refresh rotation without a pass, mean of the windows before and after it',
        requestsPerSecond: withoutRate,
      },
      { scenario: `    before the pass (${windowSeconds} s)`, requestsPerSecond: withoutBefore.run.rate },
      { scenario: `    after the pass (${windowSeconds} s)`, requestsPerSecond: withoutAfter.run.rate },
    ];
  } finally {
    await auth.stop();
  }
}

type Rotate = (refreshToken: string) => Promise<string | undefined>;

/** One refresh_token grant; the new refresh token, or undefined when it was refused. */
function rotator(authUrl: string, clientId: string, clientSecret: string): Rotate {
  const authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
  return async (refreshToken) => {
    const response = await fetch(`${authUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    const body = (await response.json()) as { refresh_token?: string };
    return response.ok ? body.refresh_token : undefined;
  };
}

interface RotationRun {
  rotations: number;
  failures: number;
  seconds: number;
  rate: number;
  report?: Awaited<ReturnType<typeof runJanitorPass>>;
}

/**
 * Every chain rotates its refresh token again and again: until `total` rotations in all, for
 * `seconds`, or while `whilePending` (the janitor pass) has not settled.
 */
async function rotateFor(
  tokens: string[],
  rotate: Rotate,
  until: { total?: number; seconds?: number; whilePending?: ReturnType<typeof runJanitorPass> },
): Promise<RotationRun> {
  const started = performance.now();
  let rotations = 0;
  let failures = 0;
  let settled = false;
  let report: RotationRun['report'];
  const pending = until.whilePending?.then((result) => {
    report = result;
    settled = true;
  });
  const done = () =>
    (until.total !== undefined && rotations + failures >= until.total) ||
    (until.seconds !== undefined && performance.now() - started >= until.seconds * 1000) ||
    (pending !== undefined && settled);
  await Promise.all(
    tokens.map(async (first) => {
      let token: string | undefined = first;
      while (token && !done()) {
        const next: string | undefined = await rotate(token);
        if (next) rotations += 1;
        else failures += 1;
        token = next;
      }
    }),
  );
  await pending;
  const seconds = (performance.now() - started) / 1000;
  return { rotations, failures, seconds, rate: rotations / seconds, ...(report ? { report } : {}) };
}

async function mintRefreshTokens(authUrl: string, memberId: number, clientId: string, count: number) {
  const response = await fetch(`${authUrl}/__bench/mint`, {
    method: 'POST',
    body: JSON.stringify({ kind: 'refresh', memberId, clientId, count }),
  });
  if (!response.ok) throw new Error(`mint failed: ${await response.text()}`);
  return ((await response.json()) as { tokens: string[] }).tokens;
}

/** The janitor's own rule for oidc_models (packages/db/src/janitor/rules.ts) decides what is removable. */
const OIDC_MODELS_RULE = RETENTION_RULES.find((rule) => rule.kind === 'oidc_models');

/** Rows of oidc_models, and how many of them the janitor may delete; the rest are still live. */
async function oidcRowCounts(db: Database): Promise<{ total: number; removable: number; live: number }> {
  if (!OIDC_MODELS_RULE) throw new Error('no janitor rule for oidc_models');
  const [row] = await db('oidc_models').select<Array<{ total: string; removable: string }>>(
    db.raw('count(*) as total'),
    db.raw(
      `count(*) filter (where ${OIDC_MODELS_RULE.condition}) as removable`,
      OIDC_MODELS_RULE.bindings(RETENTION) as Knex.RawBinding[],
    ),
  );
  const total = Number(row?.total ?? 0);
  const removable = Number(row?.removable ?? 0);
  return { total, removable, live: total - removable };
}

/**
 * Samples pg_stat_activity every 200 ms while a window runs: the share of samples in which an
 * autovacuum worker was working on oidc_models.
 */
function autovacuumWatch(db: Database) {
  return {
    async during(work: () => Promise<RotationRun>): Promise<{ run: RotationRun; autovacuum: number }> {
      let samples = 0;
      let busy = 0;
      let running = true;
      const sampling = (async () => {
        while (running) {
          const [row] = await db('pg_stat_activity')
            .where({ backend_type: 'autovacuum worker' })
            .andWhere('query', 'like', '%oidc_models%')
            .count<Array<{ count: number }>>('* as count');
          samples += 1;
          if (Number(row?.count ?? 0) > 0) busy += 1;
          await sleep(200);
        }
      })();
      try {
        return { run: await work(), autovacuum: samples === 0 ? 0 : busy / samples };
      } finally {
        running = false;
        await sampling;
      }
    },
  };
}

const percent = (share: number) => `${Math.round(share * 100)} %`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
