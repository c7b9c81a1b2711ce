import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMember, insertPersonalAccessToken, tokenHash, touchPersonalAccessToken } from '../src/index';
import { createTestDatabase, type TestDatabase } from '../src/testing/index';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database.drop());

/** A fresh personal access token of a fresh member, never used; its hash is what introspection touches. */
async function aToken(): Promise<{ id: number; hash: string }> {
  const member = await insertMember(database.db, {
    email: `${randomUUID()}@example.test`,
    name: 'Script owner',
    password_hash: 'not-a-real-hash',
  });
  const hash = tokenHash(`pat-${randomUUID()}`);
  const row = await insertPersonalAccessToken(database.db, {
    member_id: member.id,
    name: 'nightly',
    token_hash: hash,
    grant_id: randomUUID(),
    scopes: ['contacts:read'],
    expires_at: new Date(Date.now() + 86_400_000),
  });
  return { id: row.id, hash };
}

/** Waits until `count` statements of this database wait on a row lock. */
async function waitForLockWaiters(count: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { rows } = await database.db.raw<{ rows: Array<{ waiting: number }> }>(
      "select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    if ((rows[0]?.waiting ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fewer than ${count} statements came to wait on the lock`);
}

const lastUsedAt = async (id: number): Promise<Date | null> =>
  (await database.db('personal_access_tokens').where({ id }).first('last_used_at')).last_used_at;

describe('recording a personal access token’s use', () => {
  it('reports the first use once, and writes at most once a minute afterwards', async () => {
    const token = await aToken();
    expect(await touchPersonalAccessToken(database.db, token.hash)).toMatchObject({ id: token.id, name: 'nightly' });
    const first = await lastUsedAt(token.id);
    expect(first).not.toBeNull();
    expect(await touchPersonalAccessToken(database.db, token.hash)).toBeUndefined();
    expect(await lastUsedAt(token.id)).toEqual(first);

    // Used again after more than a minute: the time moves on, and it is no first use.
    await database
      .db('personal_access_tokens')
      .where({ id: token.id })
      .update({ last_used_at: database.db.raw("now() - interval '2 minutes'") });
    const stale = await lastUsedAt(token.id);
    expect(await touchPersonalAccessToken(database.db, token.hash)).toBeUndefined();
    expect((await lastUsedAt(token.id))!.getTime()).toBeGreaterThan(stale!.getTime());
  });

  it('of first uses racing on several connections, exactly one is reported', async () => {
    const token = await aToken();
    // Every touch takes its snapshot while the row is locked, so all of them find it unused and
    // wait; once it is released they update one after the other.
    let touches: Array<Promise<unknown>> = [];
    await database.db.transaction(async (trx) => {
      await trx('personal_access_tokens').where({ id: token.id }).forUpdate();
      touches = Array.from({ length: 6 }, () => touchPersonalAccessToken(database.db, token.hash));
      await waitForLockWaiters(6);
    });
    const outcomes = await Promise.all(touches);
    expect(outcomes.filter((outcome) => outcome !== undefined)).toHaveLength(1);
  });

  it('touches nothing for a hash no token has', async () => {
    expect(await touchPersonalAccessToken(database.db, tokenHash('no-such-token'))).toBeUndefined();
  });
});
