import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcAdapterClass, type OidcAdapter, tokenHash, withRequestScope } from '../src/index';
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
const queriesDuring = async (work: () => Promise<unknown>) => {
  let count = 0;
  const listener = () => {
    count += 1;
  };
  database.db.on('query', listener);
  try {
    await work();
  } finally {
    database.db.off('query', listener);
  }
  return count;
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

/** A refresh's writes, in a token request whose answer is kept (2xx/4xx) or not (5xx). */
async function rotate(grantId: string, refreshId: string, next: string, kept: boolean) {
  await withRequestScope(
    async () => {
      await adapterFor('RefreshToken').consume(refreshId);
      await adapterFor('RefreshToken').upsert(next, { jti: next, grantId }, 3600);
    },
    () => kept,
  );
}

describe('the oidc adapter in a token request', () => {
  it('keeps a rotation (consume + new tokens) when the request keeps it', async () => {
    const { grantId, refreshId } = await aGrantWithRefreshToken();
    const next = anId('refresh');
    await rotate(grantId, refreshId, next, true);
    expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeInstanceOf(Date);
    expect(await stored('RefreshToken', next)).toEqual({ consumed_at: null });
  });

  it('stores nothing of a rotation the request does not keep (a 5xx), or that throws half-way', async () => {
    const { grantId, refreshId } = await aGrantWithRefreshToken();
    const next = anId('refresh');
    await rotate(grantId, refreshId, next, false);
    expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeNull();
    expect(await stored('RefreshToken', next)).toBeUndefined();

    await expect(
      withRequestScope(
        async () => {
          await adapterFor('RefreshToken').consume(refreshId);
          throw new Error('the access token could not be stored');
        },
        () => true,
      ),
    ).rejects.toThrow('could not be stored');
    expect((await stored('RefreshToken', refreshId))?.consumed_at).toBeNull();
  });

  it('lets exactly one of two racing requests consume a refresh token', async () => {
    const { refreshId } = await aGrantWithRefreshToken();
    const attempt = () =>
      withRequestScope(
        () =>
          adapterFor('RefreshToken')
            .consume(refreshId)
            .then(() => 'consumed'),
        () => true,
      ).catch((error: Error) => error.message);
    expect((await Promise.all([attempt(), attempt(), attempt()])).sort()).toEqual([
      'consumed',
      'consumed twice',
      'consumed twice',
    ]);
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
});
