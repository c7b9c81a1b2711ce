import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createDatabase,
  createOidcAdapterClass,
  type Database,
  estimatedTableRows,
  insertMember,
  JANITOR_KINDS,
  type JanitorOutcome,
  runJanitorPass,
  startJanitor,
  tokenHash,
} from '../src/index';
import { createTestDatabase, type TestDatabase } from '../src/testing/index';

let database: TestDatabase;
let db: Database;
beforeEach(async () => {
  // A database per test: a pass deletes whatever expired anywhere, so counts must not mix.
  database = await createTestDatabase();
  db = database.db;
});
afterEach(async () => database.drop());

const DAY = 24 * 3600 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms);
const later = (ms: number) => new Date(Date.now() + ms);
const silent = { info: () => {}, warn: () => {} };

let sequence = 0;
const aMember = () => {
  sequence += 1;
  return insertMember(db, { email: `m${sequence}@example.test`, name: `M ${sequence}`, password_hash: 'x' });
};

async function anOidcModel(
  row: { model?: string; expiresAt: Date | null; consumedAt?: Date | null; id?: string } = { expiresAt: null },
): Promise<string> {
  sequence += 1;
  const idHash = tokenHash(row.id ?? `model-${sequence}`);
  await db('oidc_models').insert({
    model: row.model ?? 'AccessToken',
    id_hash: idHash,
    payload: JSON.stringify({}),
    expires_at: row.expiresAt,
    consumed_at: row.consumedAt ?? null,
  });
  return idHash;
}

async function aMemberSession(memberId: number, expiresAt: Date): Promise<string> {
  sequence += 1;
  const idHash = `session-${sequence}`;
  await db('member_sessions').insert({ id_hash: idHash, member_id: memberId, expires_at: expiresAt });
  return idHash;
}

async function aRateLimitRow(expire: number | null): Promise<string> {
  sequence += 1;
  const key = `api:token-${sequence}`;
  await db('rate_limits').insert({ key, points: 3, expire });
  return key;
}

async function anAuditEvent(memberId: number, createdAt: Date): Promise<number> {
  const [row] = await db('audit_events')
    .insert({ member_id: memberId, event: 'sign_in', created_at: createdAt })
    .returning<Array<{ id: number }>>('id');
  return (row as { id: number }).id;
}

async function aPersonalAccessToken(memberId: number, expiresAt: Date): Promise<number> {
  sequence += 1;
  const [row] = await db('personal_access_tokens')
    .insert({
      member_id: memberId,
      name: 'script',
      token_hash: `pat-${sequence}`,
      grant_id: `pat-grant-${sequence}`,
      scopes: ['*'],
      expires_at: expiresAt,
    })
    .returning<Array<{ id: number }>>('id');
  return (row as { id: number }).id;
}

async function aTombstone(memberId: number, deletedAt: Date): Promise<number> {
  sequence += 1;
  const contactId = 1_000_000 + sequence;
  await db('contact_tombstones').insert({ contact_id: contactId, member_id: memberId, deleted_at: deletedAt });
  return contactId;
}

async function aDpopProof(expiresAt: Date): Promise<string> {
  sequence += 1;
  const key = `proof-${sequence}`;
  await db('dpop_proofs').insert({ key, expires_at: expiresAt });
  return key;
}

async function anIdempotencyKey(memberId: number, expiresAt: Date): Promise<string> {
  sequence += 1;
  const key = `key-${sequence}`;
  await db('idempotency_keys').insert({
    member_id: memberId,
    key,
    fingerprint: 'f',
    status: 201,
    result_ids: [sequence],
    expires_at: expiresAt,
  });
  return key;
}

const column = async <T>(table: string, name: string): Promise<T[]> =>
  (await db(table).orderBy(name).pluck(name)) as T[];

describe('a janitor pass', () => {
  it('deletes every row past its expiry or retention, keeps the live ones, and counts per kind', async () => {
    const member = await aMember();
    const expiredToken = await anOidcModel({ expiresAt: ago(3_600_000) });
    const consumedAndExpired = await anOidcModel({
      model: 'RefreshToken',
      expiresAt: ago(3_600_000),
      consumedAt: ago(7_200_000),
    });
    const expiredSession = await anOidcModel({ model: 'Session', expiresAt: ago(120_000) });
    const liveToken = await anOidcModel({ expiresAt: later(3_600_000) });
    const consumedButLive = await anOidcModel({
      model: 'RefreshToken',
      expiresAt: later(3_600_000),
      consumedAt: ago(1_000),
    });
    const withoutExpiry = await anOidcModel({ model: 'Grant', expiresAt: null });
    // Within the minute allowed for clock differences between the services and PostgreSQL.
    const justExpired = await anOidcModel({ expiresAt: ago(5_000) });

    await aMemberSession(member.id, ago(DAY));
    const liveSession = await aMemberSession(member.id, later(DAY));

    await aRateLimitRow(Date.now() - 3_600_000);
    const currentWindow = await aRateLimitRow(Date.now() + 30_000);
    const blockedForever = await aRateLimitRow(null);

    await anAuditEvent(member.id, ago(400 * DAY));
    await anAuditEvent(member.id, ago(366 * DAY));
    const recentEvent = await anAuditEvent(member.id, ago(364 * DAY));

    await aPersonalAccessToken(member.id, ago(31 * DAY));
    const recentlyExpiredPat = await aPersonalAccessToken(member.id, ago(29 * DAY));
    const livePat = await aPersonalAccessToken(member.id, later(DAY));

    // Tombstones: the sync token lifetime (30 days) plus a day's margin.
    await aTombstone(member.id, ago(32 * DAY));
    const tombstoneWithinMargin = await aTombstone(member.id, ago(30.5 * DAY));
    const recentTombstone = await aTombstone(member.id, ago(DAY));

    await aDpopProof(ago(120_000));
    const liveProof = await aDpopProof(later(30_000));

    await anIdempotencyKey(member.id, ago(120_000));
    await anIdempotencyKey(member.id, ago(2 * DAY));
    // Within the minute allowed for clock differences, and one that has a day to go.
    const justExpiredKey = await anIdempotencyKey(member.id, ago(5_000));
    const liveKey = await anIdempotencyKey(member.id, later(DAY));

    const report = await runJanitorPass(db, { auditRetentionDays: 365, syncTokenTtlSeconds: 2_592_000 });

    expect(report.ran).toBe(true);
    expect(report.deleted).toEqual({
      oidc_models: 3,
      member_sessions: 1,
      rate_limits: 1,
      audit_events: 2,
      personal_access_tokens: 1,
      contact_tombstones: 1,
      dpop_proofs: 1,
      idempotency_keys: 2,
    });
    expect(await column('oidc_models', 'id_hash')).toEqual(
      [liveToken, consumedButLive, withoutExpiry, justExpired].sort(),
    );
    expect(await column('oidc_models', 'id_hash')).not.toContain(expiredToken);
    expect(await column('oidc_models', 'id_hash')).not.toContain(consumedAndExpired);
    expect(await column('oidc_models', 'id_hash')).not.toContain(expiredSession);
    expect(await column('member_sessions', 'id_hash')).toEqual([liveSession]);
    expect(await column('rate_limits', 'key')).toEqual([currentWindow, blockedForever].sort());
    expect(await column('audit_events', 'id')).toEqual([recentEvent]);
    expect(await column('personal_access_tokens', 'id')).toEqual([recentlyExpiredPat, livePat]);
    expect(await column('contact_tombstones', 'contact_id')).toEqual([tombstoneWithinMargin, recentTombstone]);
    expect(await column('dpop_proofs', 'key')).toEqual([liveProof]);
    expect(await column('idempotency_keys', 'key')).toEqual([justExpiredKey, liveKey].sort());
  });

  it('deletes audit events older than the configured retention', async () => {
    const member = await aMember();
    await anAuditEvent(member.id, ago(31 * DAY));
    const kept = await anAuditEvent(member.id, ago(29 * DAY));

    const report = await runJanitorPass(db, { auditRetentionDays: 30, syncTokenTtlSeconds: 2_592_000 });

    expect(report.deleted.audit_events).toBe(1);
    expect(await column('audit_events', 'id')).toEqual([kept]);
  });

  it('keeps a consumed refresh token until it expires, so that its reuse is still detected', async () => {
    const Adapter = createOidcAdapterClass(db, {
      findClient: async () => undefined,
      consumedTwiceError: () => new Error('consumed twice'),
    });
    const refreshTokens = new Adapter('RefreshToken');
    await refreshTokens.upsert('refresh-1', { grantId: 'grant-1', clientId: 'client-1' }, 3_600);
    await refreshTokens.consume('refresh-1');

    const report = await runJanitorPass(db, { auditRetentionDays: 365, syncTokenTtlSeconds: 2_592_000 });

    expect(report.deleted.oidc_models).toBe(0);
    const found = await refreshTokens.find('refresh-1');
    // oidc-provider sees `consumed` and revokes the whole grant: the reuse-detection path.
    expect(found?.consumed).toEqual(expect.any(Number));
    await expect(refreshTokens.consume('refresh-1')).rejects.toThrow('consumed twice');
  });

  it('deletes in batches until nothing expired is left, however many rows there are', async () => {
    await db.raw(
      `insert into oidc_models (model, id_hash, payload, expires_at)
       select 'AccessToken', 'expired-' || n, '{}', now() - interval '1 hour' from generate_series(1, 2500) n`,
    );
    const live = await anOidcModel({ expiresAt: later(3_600_000) });

    const batches: number[] = [];
    const report = await runJanitorPass(db, {
      auditRetentionDays: 365,
      syncTokenTtlSeconds: 2_592_000,
      batchSize: 1_000,
      pauseMs: 0,
      onBatch: (kind, rows) => kind === 'oidc_models' && batches.push(rows),
    });

    expect(batches).toEqual([1_000, 1_000, 500]);
    expect(report.deleted.oidc_models).toBe(2_500);
    expect(await column('oidc_models', 'id_hash')).toEqual([live]);
  });

  it('runs in one process at a time: a second janitor skips its turn while the first holds the lock', async () => {
    await db.raw(
      `insert into oidc_models (model, id_hash, payload, expires_at)
       select 'AccessToken', 'expired-' || n, '{}', now() - interval '1 hour' from generate_series(1, 1000) n`,
    );
    const [first, second] = [createDatabase(database.url), createDatabase(database.url)];
    try {
      // Small batches with pauses: the first pass lasts long enough for the second to meet it.
      const running = runJanitorPass(first, {
        auditRetentionDays: 365,
        syncTokenTtlSeconds: 2_592_000,
        batchSize: 50,
        pauseMs: 30,
      });
      await until(async () => (await advisoryLocksHeld()) === 1);
      const skipped = await runJanitorPass(second, { auditRetentionDays: 365, syncTokenTtlSeconds: 2_592_000 });
      const ran = await running;

      expect(skipped.ran).toBe(false);
      expect(Object.values(skipped.deleted)).toEqual(JANITOR_KINDS.map(() => 0));
      expect(ran.ran).toBe(true);
      expect(ran.deleted.oidc_models).toBe(1_000);
      // The lock was given back: the next pass runs.
      expect((await runJanitorPass(second, { auditRetentionDays: 365, syncTokenTtlSeconds: 2_592_000 })).ran).toBe(
        true,
      );
      expect(await advisoryLocksHeld()).toBe(0);
    } finally {
      await Promise.all([first.destroy(), second.destroy()]);
    }
  });
});

describe('the janitor timer', () => {
  it('runs passes on its interval, reports each (in the log as fields), and stops for good', async () => {
    await anOidcModel({ expiresAt: ago(3_600_000) });
    const logged: Array<{ fields: object; message: string }> = [];
    const janitor = startJanitor(
      db,
      { intervalSeconds: 1, auditRetentionDays: 365, syncTokenTtlSeconds: 2_592_000 },
      { info: (fields, message) => logged.push({ fields, message }), warn: () => {} },
    );
    const outcomes: JanitorOutcome[] = [];
    janitor.onPass((outcome) => outcomes.push(outcome));
    await until(async () => outcomes.length >= 1);
    await janitor.stop();
    const seen = outcomes.length;
    await new Promise((resolve) => setTimeout(resolve, 1_200));

    expect(outcomes[0]).toEqual({
      outcome: 'ran',
      deleted: {
        oidc_models: 1,
        member_sessions: 0,
        rate_limits: 0,
        audit_events: 0,
        personal_access_tokens: 0,
        contact_tombstones: 0,
        dpop_proofs: 0,
        idempotency_keys: 0,
      },
    });
    expect(outcomes).toHaveLength(seen);
    expect(logged[0]).toMatchObject({
      message: 'janitor pass',
      fields: { janitor: { ran: true, deleted: { oidc_models: 1 } } },
    });
  });

  it('does not run when its interval is 0', async () => {
    const expired = await anOidcModel({ expiresAt: ago(3_600_000) });
    const janitor = startJanitor(
      db,
      { intervalSeconds: 0, auditRetentionDays: 365, syncTokenTtlSeconds: 2_592_000 },
      silent,
    );
    const outcomes: JanitorOutcome[] = [];
    janitor.onPass((outcome) => outcomes.push(outcome));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await janitor.stop();

    expect(outcomes).toEqual([]);
    expect(await column('oidc_models', 'id_hash')).toEqual([expired]);
  });

  it("estimates the growing tables' row counts from PostgreSQL's statistics", async () => {
    await db.raw(
      `insert into oidc_models (model, id_hash, payload, expires_at)
       select 'AccessToken', 'live-' || n, '{}', now() + interval '1 hour' from generate_series(1, 40) n`,
    );
    const janitor = startJanitor(db, undefined, silent);
    // The statistics arrive shortly after the commit.
    await until(async () => (await janitor.tableRows()).oidc_models === 40);
    expect(Object.keys(await estimatedTableRows(db)).sort()).toEqual([...JANITOR_KINDS].sort());
  });
});

async function advisoryLocksHeld(): Promise<number> {
  const { rows } = await db.raw<{ rows: Array<{ held: number }> }>(
    "select count(*) as held from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())",
  );
  return rows[0]?.held ?? 0;
}

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
