import type { Introspection } from './introspection';

/**
 * Introspection results by token hash (never the token itself). Active results live for
 * min(60 s, time left to exp); inactive ones a few seconds, enough to absorb a burst of retries
 * with a bad token. Bounded: the oldest entries go first when it is full.
 */
export interface TokenCacheOptions {
  activeTtlMs?: number;
  inactiveTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  result: Introspection;
  expiresAt: number;
}

/** Why an entry left the cache before anyone asked for it again. */
export type EvictionReason = 'revoked' | 'cleared' | 'expired' | 'capacity';

/** Running totals since the process started, exported as Prometheus counters (see metrics.ts). */
export interface TokenCacheStats {
  hits: number;
  misses: number;
  evictions: Record<EvictionReason, number>;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly activeTtlMs: number;
  private readonly inactiveTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  readonly stats: TokenCacheStats = {
    hits: 0,
    misses: 0,
    evictions: { revoked: 0, cleared: 0, expired: 0, capacity: 0 },
  };

  constructor(options: TokenCacheOptions = {}) {
    this.activeTtlMs = options.activeTtlMs ?? 60_000;
    this.inactiveTtlMs = options.inactiveTtlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    this.now = options.now ?? Date.now;
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
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(hash);
      this.stats.evictions.expired += 1;
      return undefined;
    }
    return entry.result;
  }

  set(hash: string, result: Introspection): void {
    const now = this.now();
    let ttl = result.active ? this.activeTtlMs : this.inactiveTtlMs;
    if (result.active && result.exp !== undefined) ttl = Math.min(ttl, result.exp * 1000 - now);
    if (ttl <= 0) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) {
        this.entries.delete(oldest.value);
        this.stats.evictions.capacity += 1;
      }
    }
    this.entries.set(hash, { result, expiresAt: now + ttl });
  }

  evict(hash: string): void {
    if (this.entries.delete(hash)) this.stats.evictions.revoked += 1;
  }

  clear(): void {
    this.stats.evictions.cleared += this.entries.size;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
