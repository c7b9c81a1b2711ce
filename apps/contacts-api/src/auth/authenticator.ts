import type { BearerCredentials } from '../http/bearer';
import { AuthServerUnavailable, type Introspect, type Introspection } from './introspection';
import type { TokenCache } from './token-cache';

/**
 * Decides who a bearer token belongs to, trusting the cache only while revocations can reach it.
 *
 * - While the LISTEN connection is down, the cache is bypassed (it may hold revoked tokens).
 * - A cache hit is confirmed by a round trip on the LISTEN connection, so that a revocation
 *   committed before this request arrived has already evicted its token: "refused on the very
 *   next request" holds even though notifications are asynchronous.
 * - An introspection answer is not cached when any revocation (or a reset) was seen while it
 *   was in flight: it could be the answer from just before that revocation.
 */
export interface RevocationFeed {
  readonly listening: boolean;
  sync(): Promise<void>;
}

export interface Verdict {
  introspection: Introspection;
  confirm(): Promise<Introspection>;
}

export class Authenticator {
  constructor(
    private readonly introspect: Introspect,
    private readonly cache: TokenCache,
    private readonly feed: RevocationFeed,
  ) {}

  /**
   * The token's introspection, possibly from the cache, and `confirm()`: the answer that holds
   * once every revocation committed before this call has been seen (the cached one, or a fresh
   * introspection when the cache could not be confirmed). Confirmation starts at once, so a read
   * can run alongside it and only its response waits; a write must confirm before it acts.
   * Throws AuthServerUnavailable when nobody can tell.
   */
  async authenticate({ token, hash }: BearerCredentials): Promise<Verdict> {
    const cached = this.feed.listening ? this.cache.get(hash) : undefined;
    if (cached) {
      const confirmation = this.feed.sync().then(
        () => (this.feed.listening ? this.cache.peek(hash) : undefined) ?? this.introspectAndCache(token, hash),
        () => this.introspectAndCache(token, hash),
      );
      // Handled here so that a confirmation nobody awaits (the request failed first) is no unhandled rejection.
      confirmation.catch(() => {});
      return { introspection: cached, confirm: () => confirmation };
    }
    const fresh = await this.introspectAndCache(token, hash);
    return { introspection: fresh, confirm: async () => fresh };
  }

  /** Whether the token is answered from the cache as active: no introspection needed for it now. */
  holdsActive({ hash }: BearerCredentials): boolean {
    return this.feed.listening && this.cache.peek(hash)?.active === true;
  }

  private async introspectAndCache(token: string, hash: string): Promise<Introspection> {
    const generation = this.cache.generation;
    const result = await this.introspect(token);
    if (this.feed.listening && generation === this.cache.generation) this.cache.set(hash, result);
    return result;
  }
}

export { AuthServerUnavailable };
