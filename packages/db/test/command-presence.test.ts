import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeringConnection, waitForOtherCommands } from '../src/command-presence';
import { createTestDatabase, type TestDatabase } from '../src/testing/index';

/**
 * The agreement between CLI commands sharing an embedded server and the command that started it
 * (and stops it once it is done), checked on a plain PostgreSQL: the protocol is its advisory lock.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

const settled = async (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

describe('commands sharing an embedded server', () => {
  it('makes the starter wait while a command uses the server, then keeps newcomers out until it has stopped', async () => {
    const using = await answeringConnection(database.url, 2_000, { presence: true });
    expect(using).toBeDefined();
    const messages: string[] = [];
    const waiting = waitForOtherCommands(database.url, (message) => messages.push(message));
    expect(await settled(waiting, 1_500)).toBe(false);
    expect(messages).toEqual([expect.stringMatching(/waiting for 1 other command/)]);

    await using?.end();
    const stopped = await waiting;
    // The window that lost a server under a command: a command that shows up after the check.
    expect(await answeringConnection(database.url, 600, { presence: true })).toBeUndefined();

    await stopped();
    const next = await answeringConnection(database.url, 2_000, { presence: true });
    expect(next).toBeDefined();
    await next?.end();
  });

  it('gives up joining a server that is being stopped as soon as its starter has ended', async () => {
    const stopped = await waitForOtherCommands(database.url, () => {});
    let starterEnded = false;
    setTimeout(() => {
      starterEnded = true;
    }, 300);
    const started = Date.now();
    expect(
      await answeringConnection(database.url, 30_000, { presence: true, giveUp: () => starterEnded }),
    ).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
    await stopped();
  });
});
