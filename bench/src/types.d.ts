// oidc-provider's own in-memory adapter and its LRU store (no type definitions are published for them).
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  export default class MemoryAdapter {
    constructor(model: string, store?: unknown, clockTolerance?: number);
  }
}
declare module 'oidc-provider/lib/helpers/lru.js' {
  export default class LRU {
    constructor(options: { maxSize: number });
  }
}
