import type { Logger } from '@contacts/config';
import {
  type Database,
  listenForNotifications,
  readTokenRevocationNotice,
  TOKEN_REVOCATION_CHANNEL,
  type TokenLookup,
  type TokenLookupMemory,
} from '@contacts/db';
import { LRUCache } from 'lru-cache';

/**
 * Access-token lookups kept in memory per auth process: resource servers introspect the same
 * tokens again and again, and an access token never changes once issued, it only ends (expiry or
 * revocation). Expiry bounds each entry's life; revocations are announced by whoever revokes, on
 * the same channel the contacts API follows (TOKEN_REVOCATION_CHANNEL), and drop the entry.
 *
 * Revoked means refused at once, on every replica: an entry is only answered after a round trip
 * on the LISTEN connection (`sync`, shared by concurrent requests), so that a revocation
 * committed before the request arrived, on any replica or by the CLI, has already dropped it. A
 * lookup that was read while any revocation arrived may be the row from just before it, and is
 * not kept. While announcements are not flowing (the LISTEN connection is down) nothing is
 * trusted and every lookup reads the table.
 */
export interface AccessTokenMemory extends TokenLookupMemory {
  readonly size: number;
  /** Running totals since the process started (exported as Prometheus counters, provider/access-token-memory-metrics.ts). */
  readonly stats: { hits: number; misses: number };
  close(): Promise<void>;
}

/**
 * A kept lookup, its payloads as JSON text: every request parses its own copy, so nobody can
 * change what the next one reads, and the objects it gets are built like those of a read from
 * the table. (Frozen shared objects were tried first: once introspection load had passed
 * through, the code that had seen both kinds of object ran slower for everything, refreshes
 * included: in bench scenario 5 right after scenario 4, this process refreshed at 0.82–0.85 of
 * a fresh one's rate; with parsed copies, 1.02.)
 */
type KeptLookup = Omit<TokenLookup, 'payload' | 'grant_payload'> & { payload: string; grant_payload?: string | null };

/** Bounds the memory held (~1.5 kB an entry, ~30 MB at most); the least recently used go first. */
const REMEMBERED_TOKENS = 20_000;
/** However long the token has left, an entry is read again after this long. */
const MAX_ENTRY_MS = 60_000;

export function accessTokenMemory(db: Database, logger: Logger): AccessTokenMemory {
  const entries = new LRUCache<string, KeptLookup>({ max: REMEMBERED_TOKENS, ttl: MAX_ENTRY_MS });
  // Bumped by every announcement: a lookup read before one arrived may be stale, and is not kept.
  let generation = 0;
  const stats = { hits: 0, misses: 0 };
  const listener = listenForNotifications(db, {
    channel: TOKEN_REVOCATION_CHANNEL,
    onNotification(payload) {
      generation += 1;
      const hashes = readTokenRevocationNotice(payload);
      if (!hashes) entries.clear();
      else for (const hash of hashes) entries.delete(hash);
    },
    onStateChange(listening, error) {
      generation += 1;
      entries.clear();
      // Said both ways, so that an operator alerting on the warning sees it clear.
      if (listening) logger.info('listening for token revocations; access tokens kept in memory again');
      else logger.warn({ err: error }, 'token revocation listener down; reading every access token from the database');
    },
  });

  /** The entry, once every announcement committed before this call has arrived. */
  const confirmed = async (idHash: string): Promise<TokenLookup | undefined> => {
    if (!listener.listening || !entries.has(idHash)) return undefined;
    try {
      await listener.sync();
    } catch {
      return undefined;
    }
    const kept = listener.listening ? entries.get(idHash) : undefined;
    return kept ? unpack(kept) : undefined;
  };

  return {
    async recall(idHash) {
      const found = await confirmed(idHash);
      if (found) stats.hits += 1;
      else stats.misses += 1;
      return found;
    },
    startRead: () => generation,
    keep(idHash, lookup, readAt) {
      if (!listener.listening || readAt !== generation) return;
      const expiresAt = typeof lookup.payload.exp === 'number' ? lookup.payload.exp * 1000 : Number.POSITIVE_INFINITY;
      const ttl = Math.min(MAX_ENTRY_MS, expiresAt - Date.now());
      if (ttl > 0) entries.set(idHash, pack(lookup), { ttl });
    },
    get size() {
      return entries.size;
    },
    stats,
    close: () => listener.close(),
  };
}

function pack({ payload, grant_payload, ...rest }: TokenLookup): KeptLookup {
  return {
    ...rest,
    payload: JSON.stringify(payload),
    ...(grant_payload === undefined ? {} : { grant_payload: grant_payload && JSON.stringify(grant_payload) }),
  };
}

function unpack({ payload, grant_payload, ...rest }: KeptLookup): TokenLookup {
  return {
    ...rest,
    payload: JSON.parse(payload),
    ...(grant_payload === undefined ? {} : { grant_payload: grant_payload && JSON.parse(grant_payload) }),
  };
}
