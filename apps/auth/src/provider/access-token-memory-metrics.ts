import { Counter, Gauge, type Registry } from 'prom-client';
import type { AccessTokenMemory } from './access-token-memory';

/** How often introspection was answered from the process's access-token memory, read at scrape time. */
export function accessTokenMemoryMetrics(registry: Registry, memory: AccessTokenMemory): void {
  new Counter({
    name: 'access_token_memory_hits_total',
    help: 'Access-token lookups answered from memory (introspection, revocation).',
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      this.inc(memory.stats.hits);
    },
  });
  new Counter({
    name: 'access_token_memory_misses_total',
    help: 'Access-token lookups read from the database.',
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      this.inc(memory.stats.misses);
    },
  });
  new Gauge({
    name: 'access_token_memory_entries',
    help: 'Access tokens currently kept in memory.',
    registers: [registry],
    collect(this: Gauge) {
      this.set(memory.size);
    },
  });
}
