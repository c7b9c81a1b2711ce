import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberDpopProof } from '../src/index';
import { createTestDatabase, type TestDatabase } from '../src/testing/index';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);

describe('dpop_proofs', () => {
  it('accepts a jti once per key, across concurrent attempts', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => rememberDpopProof(database.db, 'key-a', 'jti-1', inSeconds(60))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await rememberDpopProof(database.db, 'key-b', 'jti-1', inSeconds(60))).toBe(true);
  });

  it('takes over an expired entry', async () => {
    expect(await rememberDpopProof(database.db, 'key-c', 'jti-2', inSeconds(-1))).toBe(true);
    expect(await rememberDpopProof(database.db, 'key-c', 'jti-2', inSeconds(60))).toBe(true);
    expect(await rememberDpopProof(database.db, 'key-c', 'jti-2', inSeconds(60))).toBe(false);
  });
});
