import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@contacts/config';
import { createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelopeOf, errorRenderer } from '../src/http/errors';

/**
 * A write PostgreSQL undoes because it collided with a concurrent one (a deadlock) is no server
 * failure: nothing was written, and the same request can succeed. It answers 503 with
 * Retry-After in the documented shape, not 500. The error is a real one, from two transactions
 * that lock two rows in opposite orders.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

/** Two transactions, each holding one row and then asking for the other's: PostgreSQL undoes one. */
async function aRealDeadlock(): Promise<unknown> {
  const { db } = database;
  await db.raw('create table collision_rows (id int primary key)');
  await db.raw('insert into collision_rows values (1), (2)');
  const holding = [signal(), signal()] as const;
  const lockBoth = (mine: 0 | 1) =>
    db.transaction(async (trx) => {
      const other = mine === 0 ? 1 : 0;
      await trx.raw('select id from collision_rows where id = ? for update', [mine + 1]);
      holding[mine].fire();
      await holding[other].promise;
      await trx.raw('select id from collision_rows where id = ? for update', [other + 1]);
    });
  const outcomes = await Promise.allSettled([lockBoth(0), lockBoth(1)]);
  const undone = outcomes.find((outcome) => outcome.status === 'rejected');
  if (!undone) throw new Error('no deadlock happened');
  return undone.reason;
}

describe('a write undone by a deadlock', () => {
  let server: Server | undefined;
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('answers 503 with Retry-After in the v4 error shape, never 500', async () => {
    const deadlock = await aRealDeadlock();
    expect(deadlock).toMatchObject({ code: '40P01' });
    const app = new Koa();
    app.use(errorRenderer(createLogger('collision-test', { LOG_LEVEL: 'silent' }), errorEnvelopeOf));
    app.use(() => {
      throw deadlock;
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v4/contacts`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
  });
});
