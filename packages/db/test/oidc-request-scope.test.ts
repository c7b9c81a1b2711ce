import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createOidcAdapterClass,
  flushTokenWrites,
  insertMember,
  type OidcAdapter,
  takeRememberedAccount,
  tokenHash,
  withRequestScope,
} from '../src/index';
import { createTestDatabase, type TestDatabase } from '../src/testing/index';

/** The oidc-provider adapter inside the auth server's request scope (packages/db/src/request-scope.ts). */
let database: TestDatabase;
let adapterFor: (model: string) => OidcAdapter;
beforeAll(async () => {
  database = await createTestDatabase();
  const Adapter = createOidcAdapterClass(database.db, {
    findClient: async () => undefined,
    consumedTwiceError: () => new Error('consumed twice'),
  });
  adapterFor = (model) => new Adapter(model);
});
afterAll(async () => database?.drop());

let sequence = 0;
const anId = (prefix: string) => `${prefix}-${process.pid}-${++sequence}`;
const stored = async (model: string, id: string) =>
  database
    .db('oidc_models')
    .where({ model, id_hash: tokenHash(id) })
    .first('consumed_at');
/** Statements sent to PostgreSQL while `work` runs, counted where the driver sends them (knex's or not). */
const queriesDuring = async (work: () => Promise<unknown>) => {
  const sent = vi.spyOn(pg.Client.prototype, 'query');
  try {
    await work();
    return sent.mock.calls.length;
  } finally {
    sent.mockRestore();
  }
};

/** A grant and a refresh token of it, as oidc-provider stores them. */
async function aGrantWithRefreshToken() {
  const grantId = anId('grant');
  const refreshId = anId('refresh');
  await adapterFor('Grant').upsert(grantId, { jti: grantId, accountId: '1', clientId: 'app', exp: 0 }, 3600);
  await adapterFor('RefreshToken').upsert(
    refreshId,
    { jti: refreshId, grantId, accountId: '1', clientId: 'app' },
    3600,
  );
  return { grantId, refreshId };
}

/**
 * A refresh's writes in a token request: held back (consume, then the new token) and, when the
 * answer is a success, written by flushTokenWrites; an error answer never flushes.
 */
async function rotate(refreshId: string, next: string, { grantId = 'g', answered = true } = {}) {
  return withRequestScope(
    async () => {
      await adapterFor('RefreshToken').consume(refreshId);
      await adapterFor('RefreshToken').upsert(next, { jti: next, grantId }, 3600);
      await adapterFor('AccessToken').upsert(`${next}-access`, { jti: `${next}-access`, grantId }, 3600);
      return answered ? flushTokenWrites(database.db) : undefined;
    },
    { deferTokenWrites: () => true },
  );
}

describe('the oidc adapter in a token request', () => {
  it('writes nothing until the answer is ready, then the consumption and the new tokens together', async () => {
    const { grantId, refreshId } = await aGrantWithRefreshToken();
    const next = anId('refresh');
    const statements = await queriesDuring(() =>
      withRequestScope(
        async () => {
          await adapterFor('RefreshToken').consume(refreshId);
          await adapterFor('RefreshToken').upsert(next, { jti: next, grantId }, 3600);
          expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeNull();
          expect(await stored('RefreshToken', next)).toBeUndefined();
        },
        { deferTokenWrites: () => true },
      ),
    );
    expect(statements).toBe(2); // the two checks above; the adapter itself ran nothing

    expect(await rotate(refreshId, next, { grantId })).toEqual({ outcome: 'written' });
    expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeInstanceOf(Date);
    expect(await stored('RefreshToken', next)).toEqual({ consumed_at: null });
    expect(await stored('AccessToken', `${next}-access`)).toEqual({ consumed_at: null });
  });

  it('stores nothing of a rotation whose answer is an error, or that throws half-way', async () => {
    const { grantId, refreshId } = await aGrantWithRefreshToken();
    const next = anId('refresh');
    await rotate(refreshId, next, { grantId, answered: false });
    expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeNull();
    expect(await stored('RefreshToken', next)).toBeUndefined();

    await expect(
      withRequestScope(
        async () => {
          await adapterFor('RefreshToken').consume(refreshId);
          throw new Error('the access token could not be built');
        },
        { deferTokenWrites: () => true },
      ),
    ).rejects.toThrow('could not be built');
    expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeNull();
  });

  it('lets exactly one of three racing requests consume a refresh token and store its tokens', async () => {
    const { refreshId } = await aGrantWithRefreshToken();
    const nexts = [anId('refresh'), anId('refresh'), anId('refresh')];
    const outcomes = await Promise.all(nexts.map((next) => rotate(refreshId, next)));
    expect(outcomes.map((outcome) => outcome?.outcome).sort()).toEqual([
      'consumed-already',
      'consumed-already',
      'written',
    ]);
    expect(outcomes.find((outcome) => outcome?.outcome === 'consumed-already')).toEqual({
      outcome: 'consumed-already',
      model: 'RefreshToken',
    });
    const storedNext = await Promise.all(nexts.map((next) => stored('RefreshToken', next)));
    const storedAccess = await Promise.all(nexts.map((next) => stored('AccessToken', `${next}-access`)));
    expect(storedNext.filter(Boolean)).toHaveLength(1);
    expect(storedAccess.filter(Boolean)).toHaveLength(1);
    expect(nexts.findIndex((_, i) => storedNext[i])).toBe(nexts.findIndex((_, i) => storedAccess[i]));
  });

  it('consumes at once outside a token request, and refuses a second use', async () => {
    const { refreshId } = await aGrantWithRefreshToken();
    await adapterFor('RefreshToken').consume(refreshId);
    expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeInstanceOf(Date);
    await expect(adapterFor('RefreshToken').consume(refreshId)).rejects.toThrow('consumed twice');
  });

  it("reads a token's grant with the token: the grant lookup that follows costs no query", async () => {
    const { grantId, refreshId } = await aGrantWithRefreshToken();
    let grant: Record<string, unknown> | undefined;
    const queries = await queriesDuring(() =>
      withRequestScope(async () => {
        await adapterFor('RefreshToken').find(refreshId);
        grant = await adapterFor('Grant').find(grantId);
      }),
    );
    expect(queries).toBe(1);
    expect(grant).toMatchObject({ jti: grantId, accountId: '1', clientId: 'app' });

    // Outside a request scope, or once the grant is gone, it is looked up (and found missing).
    await adapterFor('Grant').destroy(grantId);
    const afterRevocation = await withRequestScope(async () => {
      await adapterFor('RefreshToken').find(refreshId);
      return adapterFor('Grant').find(grantId);
    });
    expect(afterRevocation).toBeUndefined();
  });

  it("reads whether a token's member may use it with the token, and forgets it once taken", async () => {
    const member = await insertMember(database.db, {
      email: `${anId('m')}@example.test`,
      name: 'M',
      password_hash: 'x',
    });
    const accountId = String(member.id);
    const accessId = anId('access');
    await adapterFor('AccessToken').upsert(accessId, { jti: accessId, grantId: anId('grant'), accountId }, 3600);
    const usableAfterFind = () =>
      withRequestScope(async () => {
        await adapterFor('AccessToken').find(accessId);
        return [takeRememberedAccount(accountId), takeRememberedAccount(accountId)];
      });

    expect(await usableAfterFind()).toEqual([true, undefined]);
    await database.db('members').where({ id: member.id }).update({ disabled_at: database.db.fn.now() });
    expect(await usableAfterFind()).toEqual([false, undefined]);
    await database.db('members').where({ id: member.id }).delete();
    expect(await usableAfterFind()).toEqual([undefined, undefined]); // no member: looked up as before, and refused there
  });
});
