import type { Knex } from 'knex';
import pg from 'pg';
import type { Database } from './connection';

/**
 * A dedicated LISTEN connection (a pg.Client of its own: a pooled connection would be handed
 * to other queries and lose its LISTEN). It reconnects with backoff when the connection drops;
 * `listening` says whether notifications are flowing right now, so that callers relying on them
 * (the contacts API's token cache) can stop trusting what they hold while it is down.
 */
export interface NotificationListener {
  readonly listening: boolean;
  /**
   * Resolves once every notification committed before the call has been handed to onNotification:
   * PostgreSQL sends pending notifications ahead of a query's result on the same connection.
   * Rejects when the connection is down.
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface ListenOptions {
  channel: string;
  onNotification(payload: string): void;
  /** Called on every change of `listening`, and with the error that took it down. */
  onStateChange?(listening: boolean, error?: Error): void;
  /** First reconnect delay, ms (doubles up to 5 s). */
  retryDelay?: number;
}

export function listenForNotifications(db: Database, options: ListenOptions): NotificationListener {
  const connection = (db.client as Knex.Client).config.connection as pg.ClientConfig;
  const baseDelay = options.retryDelay ?? 100;
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let delay = baseDelay;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  const setListening = (value: boolean, error?: Error) => {
    if (listening === value && !error) return;
    listening = value;
    options.onStateChange?.(value, error);
  };

  const scheduleReconnect = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, 5_000);
  };

  const connect = async () => {
    const candidate = new pg.Client({ ...connection, application_name: 'contacts-listen' });
    const fail = (error: Error) => {
      if (client === candidate) client = undefined;
      candidate.removeAllListeners('notification');
      candidate.end().catch(() => {});
      // A connection still being made when close() was called fails as the database goes away
      // behind it: that is the shutdown, not an outage to report or to reconnect from.
      if (closed) return;
      setListening(false, error);
      scheduleReconnect();
    };
    candidate.on('error', fail);
    candidate.on('end', () => {
      if (client === candidate && !closed) fail(new Error('LISTEN connection ended'));
    });
    candidate.on('notification', (message) => {
      if (message.channel === options.channel && message.payload !== undefined) options.onNotification(message.payload);
    });
    try {
      await candidate.connect();
      await candidate.query(`listen ${pg.escapeIdentifier(options.channel)}`);
    } catch (error) {
      fail(error as Error);
      return;
    }
    if (closed) {
      await candidate.end().catch(() => {});
      return;
    }
    client = candidate;
    delay = baseDelay;
    setListening(true);
  };

  const roundTrip = (): Promise<void> => {
    const current = client;
    if (!current || !listening) return Promise.reject(new Error('LISTEN connection is down'));
    // An empty query: PostgreSQL answers it without parsing or planning anything (0.03 ms
    // against 0.14 ms for `select 1`), and, like any query, sends the notifications it received
    // meanwhile ahead of its ReadyForQuery.
    running = current
      .query('')
      .then(() => undefined)
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  void connect();

  return {
    get listening() {
      return listening;
    },
    sync() {
      // A round trip already under way may have been sent before the caller's notification was
      // committed, so it proves nothing for this caller; join (or start) the one after it.
      if (queued) return queued;
      if (running) {
        queued = running
          .catch(() => undefined)
          .then(() => {
            queued = undefined;
            return roundTrip();
          });
        return queued;
      }
      return roundTrip();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = undefined;
      listening = false;
      await current?.end().catch(() => {});
    },
  };
}
