import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { Database } from './connection';

/**
 * What one authorization-server request shares across oidc-provider's separate adapter calls.
 */
interface RequestScope {
  /**
   * Whether the request's statements run in one transaction (the token endpoint's do). Asked when
   * the first statement runs, so that it may depend on what is known by then (the matched route).
   */
  transactional: () => boolean;
  /** Begun by the first statement that needs it, so that a request which never writes never opens one. */
  transaction?: Promise<Knex.Transaction>;
  /**
   * Grants read together with a token (one query instead of two), kept until oidc-provider asks
   * for them right after. Taken once; a write to the grant in the same request drops it.
   */
  grants: Map<string, Record<string, unknown>>;
}

const current = new AsyncLocalStorage<RequestScope>();

/** When a request's statements share one transaction, and whether its outcome is committed. */
export interface RequestTransactionPolicy {
  /** Asked by the request's statements until one begins the transaction; default: always. */
  when?: () => boolean;
  /** Asked at the end: commit (true) or roll back. */
  keep: () => boolean;
}

/**
 * Runs one request's work in a scope. With a transaction policy (or just its `keep`), its
 * statements run in a single transaction (see `requestTransaction`): a refresh consumes the old
 * token and stores the new access and refresh tokens all at once or not at all, with one commit
 * (one WAL flush) instead of three. It commits when `keep()` says the outcome should stand (an
 * error answer that revoked a grant must stand too) and rolls back otherwise and on any exception.
 */
export async function withRequestScope<T>(
  work: () => Promise<T>,
  transaction?: RequestTransactionPolicy | (() => boolean),
): Promise<T> {
  const policy = typeof transaction === 'function' ? { keep: transaction } : transaction;
  const keep = policy?.keep;
  const scope: RequestScope = {
    transactional: policy ? (policy.when ?? (() => true)) : () => false,
    grants: new Map(),
  };
  let result: T;
  try {
    result = await current.run(scope, work);
  } catch (error) {
    await scope.transaction?.then((trx) => trx.rollback()).catch(() => {});
    throw error;
  }
  if (scope.transaction) {
    // A transaction that could not begin failed every statement waiting for it: the answer
    // already reports that failure, and there is nothing to commit or roll back.
    const trx = await scope.transaction.catch(() => undefined);
    if (trx && keep?.()) await trx.commit();
    else if (trx) await trx.rollback();
  }
  return result;
}

/** The running request's transaction (begun now if need be); the pool when it has none. */
export async function requestTransaction(db: Database): Promise<Database> {
  const scope = current.getStore();
  if (!scope) return db;
  if (!scope.transaction && !scope.transactional()) return db;
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

export function rememberGrant(grantId: string, payload: Record<string, unknown>): void {
  current.getStore()?.grants.set(grantId, payload);
}

/** The grant read with this request's token, once; undefined when there is none to take. */
export function takeRememberedGrant(grantId: string): Record<string, unknown> | undefined {
  const grants = current.getStore()?.grants;
  const payload = grants?.get(grantId);
  grants?.delete(grantId);
  return payload;
}

export function forgetGrant(grantId: string): void {
  current.getStore()?.grants.delete(grantId);
}
