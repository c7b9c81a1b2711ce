import { LRUCache } from 'lru-cache';
import type { Introspection } from './introspection';

/**
 * Introspection results by token hash (never the token itself), in an LRU cache. Active results
 * live for min(60 s, time left to exp); inactive ones a few seconds, enough to absorb a burst of
 * retries with a bad token. Bounded: the least recently used entries go first when it is full.
 *
 * The cache also receives the revocation notices (`revoke`, `revokeAll`) and counts them in
 * `generation`, so that an introspection answer that was in flight while a revocation arrived
 * can be recognised and left out (see Authenticator).
 */
export interface TokenCacheOptions {
  activeTtlMs?: number;
  inactiveTtlMs?: number;
  maxEntries?: number;
}

/** Why an entry left the cache before anyone asked for it again. */
export type EvictionReason = 'revoked' | 'cleared' | 'expired' | 'capacity';

/** Running totals since the process started, exported as Prometheus counters (see token-cache-metrics.ts). */
export interface TokenCacheStats {
  hits: number;
  misses: number;
  evictions: Record<EvictionReason, number>;
}

export class TokenCache {
  private readonly entries: LRUCache<string, Introspection>;
  private readonly activeTtlMs: number;
  private readonly inactiveTtlMs: number;
  /** Bumped on every revocation notice and reset. */
  private revocations = 0;
  readonly stats: TokenCacheStats = {
    hits: 0,
    misses: 0,
    evictions: { revoked: 0, cleared: 0, expired: 0, capacity: 0 },
  };

  constructor(options: TokenCacheOptions = {}) {
    this.activeTtlMs = options.activeTtlMs ?? 60_000;
    this.inactiveTtlMs = options.inactiveTtlMs ?? 5_000;
    this.entries = new LRUCache<string, Introspection>({
      max: options.maxEntries ?? 50_000,
      // Every entry gets its own ttl in set(); this is only the fallback lru-cache requires.
      ttl: this.activeTtlMs,
      // Explicit deletions (revoke, revokeAll) are counted where they happen, with their reason.
      dispose: (_value, _key, reason) => {
        if (reason === 'evict') this.stats.evictions.capacity += 1;
        else if (reason === 'expire') this.stats.evictions.expired += 1;
      },
    });
  }

  /** A lookup: counted as a hit or a miss. */
  get(hash: string): Introspection | undefined {
    const result = this.peek(hash);
    if (result) this.stats.hits += 1;
    else this.stats.misses += 1;
    return result;
  }

  /** The same lookup, not counted (for re-checking an entry already counted). */
  peek(hash: string): Introspection | undefined {
    return this.entries.get(hash);
  }

  set(hash: string, result: Introspection): void {
    let ttl = result.active ? this.activeTtlMs : this.inactiveTtlMs;
    if (result.active && result.exp !== undefined) ttl = Math.min(ttl, result.exp * 1000 - Date.now());
    if (ttl <= 0) return;
    this.entries.set(hash, result, { ttl });
  }

  /** A revocation notice: forget these tokens. */
  revoke(hashes: readonly string[]): void {
    this.revocations += 1;
    for (const hash of hashes) {
      if (this.entries.has(hash)) this.stats.evictions.revoked += 1;
      this.entries.delete(hash);
    }
  }

  /** Forget everything: a notice that cannot be mapped to tokens, or notices that may have been missed. */
  revokeAll(): void {
    this.revocations += 1;
    this.stats.evictions.cleared += this.entries.size;
    this.entries.clear();
  }

  /** Changes whenever a revocation or reset was received. */
  get generation(): number {
    return this.revocations;
  }

  get size(): number {
    return this.entries.size;
  }
}
