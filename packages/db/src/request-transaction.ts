import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { Database } from './connection';

interface RequestScope {
  /** Begun by the first statement that needs it, so that a request which never writes never opens one. */
  transaction?: Promise<Knex.Transaction>;
}

const current = new AsyncLocalStorage<RequestScope>();

/**
 * Runs one request's work in a single transaction that the oidc-provider adapter joins (see
 * `requestTransaction`): a refresh consumes the old token and stores the new access and refresh
 * tokens all at once or not at all, with one commit (one WAL flush) instead of three. Commits
 * when `keep()` says the outcome should stand (an error answer that revoked a grant must stand
 * too), rolls back otherwise and on any exception.
 */
export async function withRequestTransaction<T>(work: () => Promise<T>, keep: () => boolean): Promise<T> {
  const scope: RequestScope = {};
  let result: T;
  try {
    result = await current.run(scope, work);
  } catch (error) {
    await scope.transaction?.then((trx) => trx.rollback()).catch(() => {});
    throw error;
  }
  if (scope.transaction) {
    const trx = await scope.transaction;
    if (keep()) await trx.commit();
    else await trx.rollback();
  }
  return result;
}

/** The running request's transaction (begun now if need be); the pool outside of one. */
export async function requestTransaction(db: Database): Promise<Database> {
  const scope = current.getStore();
  if (!scope) return db;
  scope.transaction ??= db.transaction();
  return scope.transaction;
}

/**
 * For reads: the request's transaction when it has begun (it holds the request's connection,
 * and may hold rows this read must see), else the pool.
 */
export async function requestTransactionIfBegun(db: Database): Promise<Database> {
  return (await current.getStore()?.transaction) ?? db;
}
