import type { Logger } from '@contacts/config';
import {
  type Database,
  findOAuthClient,
  listenForNotifications,
  OAUTH_CLIENT_CHANGES_CHANNEL,
  type OAuthClientRow,
} from '@contacts/db';
import { LRUCache } from 'lru-cache';

/**
 * The registered applications (oauth_clients) as the provider reads them: every token request
 * and every introspection looks up at least one client, and applications change rarely, so each
 * process keeps the rows it has read. A change or deletion is announced by PostgreSQL when it
 * commits (OAUTH_CLIENT_CHANGES_CHANNEL, whichever process or CLI made it) and drops the row
 * here; a change made by this process drops it at once (`forget`). While the announcements are
 * not flowing (the LISTEN connection is down) nothing is trusted and every lookup reads the table.
 */
export interface ClientDirectory {
  find(clientId: string): Promise<OAuthClientRow | undefined>;
  /** Drops a client this process has just changed or deleted. */
  forget(clientId: string): void;
  close(): Promise<void>;
}

/** Bounds the memory held; an application not used for a while is read again. */
const CACHED_CLIENTS = 10_000;
const CACHE_TTL_MS = 10 * 60_000;

export function clientDirectory(db: Database, logger: Logger): ClientDirectory {
  const cache = new LRUCache<string, OAuthClientRow>({ max: CACHED_CLIENTS, ttl: CACHE_TTL_MS });
  // Bumped by every announcement: a row read before one arrived may be the old row, and is not kept.
  let generation = 0;
  const forget = (clientId: string) => {
    generation += 1;
    cache.delete(clientId);
  };
  const forgetAll = () => {
    generation += 1;
    cache.clear();
  };
  const listener = listenForNotifications(db, {
    channel: OAUTH_CLIENT_CHANGES_CHANNEL,
    onNotification: forget,
    onStateChange(listening, error) {
      forgetAll();
      // Said both ways, so that an operator alerting on the warning sees it clear.
      if (listening) logger.info('listening for application changes; clients kept in memory again');
      else logger.warn({ err: error }, 'application change listener down; reading every client from the database');
    },
  });

  return {
    async find(clientId) {
      const cached = listener.listening ? cache.get(clientId) : undefined;
      if (cached) return cached;
      const readAt = generation;
      const row = await findOAuthClient(db, clientId);
      if (row && listener.listening && readAt === generation) cache.set(clientId, row);
      return row;
    },
    forget,
    close: () => listener.close(),
  };
}
