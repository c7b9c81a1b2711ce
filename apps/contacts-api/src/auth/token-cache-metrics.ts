import { Counter, Gauge, type Registry } from 'prom-client';
import type { EvictionReason, TokenCache } from './token-cache';

/** The introspection cache's counters, read from `cache.stats` at scrape time. */
export function tokenCacheMetrics(registry: Registry, cache: TokenCache): void {
  new Counter({
    name: 'introspection_cache_hits_total',
    help: 'Bearer tokens answered from the introspection cache.',
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      this.inc(cache.stats.hits);
    },
  });
  new Counter({
    name: 'introspection_cache_misses_total',
    help: 'Bearer tokens not in the introspection cache (introspected at the authorization server).',
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      this.inc(cache.stats.misses);
    },
  });
  new Counter({
    name: 'introspection_cache_evictions_total',
    help: 'Entries removed from the introspection cache, by reason (revoked, cleared, expired, capacity).',
    labelNames: ['reason'],
    registers: [registry],
    collect(this: Counter<'reason'>) {
      this.reset();
      for (const [reason, count] of Object.entries(cache.stats.evictions) as Array<[EvictionReason, number]>) {
        this.inc({ reason }, count);
      }
    },
  });
  new Gauge({
    name: 'introspection_cache_entries',
    help: 'Entries currently in the introspection cache.',
    registers: [registry],
    collect(this: Gauge) {
      this.set(cache.size);
    },
  });
}
