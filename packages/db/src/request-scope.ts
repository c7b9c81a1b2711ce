import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one authorization-server request shares across oidc-provider's separate adapter calls.
 */
interface RequestScope {
  /**
   * Grants read together with a token (one query instead of two), kept until oidc-provider asks
   * for them right after. Taken once; a write to the grant in the same request drops it.
   */
  grants: Map<string, Record<string, unknown>>;
  /** Whether a token's member may use it (exists, not disabled), read with the token: id → usable. */
  accounts: Map<string, boolean>;
  /**
   * Asked when a token is consumed or stored (by then the provider has matched the route):
   * whether that write waits for flushTokenWrites (oidc-token-writes.ts).
   */
  defersTokenWrites: () => boolean;
  tokenWrites: PendingTokenWrites;
}

/**
 * What a token request writes, held until its answer is ready and then written by one atomic
 * statement: the code or refresh token it consumes and the tokens it issues.
 */
export interface PendingTokenWrites {
  consume?: { model: string; idHash: string; graceSeconds: number };
  store: PendingTokenRow[];
}

/** One oidc_models row to insert (or replace), as the adapter builds it. */
export interface PendingTokenRow {
  model: string;
  id_hash: string;
  /** The payload as JSON text. */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  account_id: string | null;
  client_id: string | null;
  expires_at: Date | null;
}

const current = new AsyncLocalStorage<RequestScope>();

export interface RequestScopeOptions {
  /** Whether a token write now is held for flushTokenWrites; asked at each write. Default: never. */
  deferTokenWrites?: () => boolean;
}

/** Runs one request's work in a scope (see RequestScope). */
export function withRequestScope<T>(work: () => Promise<T>, options: RequestScopeOptions = {}): Promise<T> {
  const scope: RequestScope = {
    grants: new Map(),
    accounts: new Map(),
    defersTokenWrites: options.deferTokenWrites ?? (() => false),
    tokenWrites: { store: [] },
  };
  return current.run(scope, work);
}

/** The running request's pending token writes, when its token writes are deferred. */
export function deferredTokenWrites(): PendingTokenWrites | undefined {
  const scope = current.getStore();
  return scope?.defersTokenWrites() ? scope.tokenWrites : undefined;
}

/** Takes the running request's pending token writes, once. */
export function takeTokenWrites(): PendingTokenWrites {
  const scope = current.getStore();
  const pending = scope?.tokenWrites ?? { store: [] };
  if (scope) scope.tokenWrites = { store: [] };
  return pending;
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

export function rememberAccount(accountId: string, usable: boolean): void {
  current.getStore()?.accounts.set(accountId, usable);
}

/** Whether the member read with this request's token may use it, once; undefined when not read. */
export function takeRememberedAccount(accountId: string): boolean | undefined {
  const accounts = current.getStore()?.accounts;
  const usable = accounts?.get(accountId);
  accounts?.delete(accountId);
  return usable;
}
