import { withTimeout } from '@contacts/config';

/**
 * A fixed-window rate limiter that answers from memory and shares its counts in batches.
 *
 * Every request is decided here, synchronously, from what this process knows: the shared count
 * of the key's window as of the last exchange with the store, plus the requests it admitted
 * since. Admitted requests are added to the store in one statement per flush, at most every
 * `flushIntervalMs`, and the store answers each key's total across all replicas. So a request
 * never waits for the store, and the store sees one write per process per interval instead of
 * one per request.
 *
 * What that gives up: a replica learns of the other replicas' requests only at its next flush.
 * Within one window, N replicas together can admit up to (N − 1) × (what one replica admits in
 * one flush interval plus the store's round trip) requests beyond the limit; a single replica
 * never exceeds it. Keys near their limit (half of it or more) are refreshed at every flush
 * even when this process admitted nothing new, so that a replica stops a key soon after the
 * others have used it up. Windows are aligned to the epoch, so every replica agrees on them as
 * far as their clocks agree.
 *
 * When the store fails, counts stay pending and are retried at the next flush; each process
 * keeps limiting on its own meanwhile (so an outage neither blocks nor stalls requests).
 */
export interface CounterStore {
  /**
   * Adds `hits` to each key's count for the window ending at `windowEndsAt` (epoch ms), and
   * answers the key's total across all replicas after the addition. `hits` may be 0 (a refresh).
   */
  add(batch: ReadonlyArray<CounterIncrement>): Promise<Map<string, number>>;
}

export interface CounterIncrement {
  key: string;
  hits: number;
  windowEndsAt: number;
}

export interface RateLimitVerdict {
  allowed: boolean;
  /** The RateLimit-* headers (IETF draft) describing the key's window. */
  headers: { 'RateLimit-Limit': string; 'RateLimit-Remaining': string; 'RateLimit-Reset': string };
}

export interface WindowedLimiterOptions {
  points: number;
  /** Window length, seconds. */
  duration: number;
  flushIntervalMs?: number;
  now?: () => number;
  warn?: (message: string) => void;
}

interface WindowCount {
  windowEndsAt: number;
  /** The store's total at the last exchange (this process's flushed hits included). */
  shared: number;
  /** Admitted here and not yet sent. */
  pending: number;
  /** Sent, answer not yet back. */
  inFlight: number;
}

/** Send one batch at most every half second: one statement per replica per interval. */
export const DEFAULT_FLUSH_INTERVAL_MS = 500;

/**
 * An exchange the store has not answered by then counts as failed (its counts go with the next
 * one): a client still connecting may hold a command without ever answering it.
 */
const STORE_TIMEOUT_MS = 2_000;

export class WindowedLimiter {
  readonly #store: CounterStore;
  readonly #points: number;
  readonly #windowMs: number;
  readonly #flushIntervalMs: number;
  readonly #now: () => number;
  readonly #warn: (message: string) => void;
  readonly #counts = new Map<string, WindowCount>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #storeFailing = false;

  constructor(store: CounterStore, options: WindowedLimiterOptions) {
    this.#store = store;
    this.#points = options.points;
    this.#windowMs = options.duration * 1000;
    this.#flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
    this.#warn = options.warn ?? (() => {});
  }

  /** Counts one request for `key` if it is within the limit; never waits for the store. */
  consume(key: string): RateLimitVerdict {
    return this.#decide(key, true);
  }

  /**
   * The verdict a request for `key` would get now, counting nothing: for a limit on something
   * known only after the work it protects (a token that proves invalid), checked before the work
   * and consumed once the outcome is known.
   */
  check(key: string): RateLimitVerdict {
    return this.#decide(key, false);
  }

  #decide(key: string, counts: boolean): RateLimitVerdict {
    const now = this.#now();
    const windowEndsAt = (Math.floor(now / this.#windowMs) + 1) * this.#windowMs;
    let count = this.#counts.get(key);
    if (!count || count.windowEndsAt !== windowEndsAt) {
      count = { windowEndsAt, shared: 0, pending: 0, inFlight: 0 };
      // A check keeps no entry: a key nothing was counted for holds no memory.
      if (counts) this.#counts.set(key, count);
    }
    const used = count.shared + count.pending + count.inFlight;
    const allowed = used < this.#points;
    const taken = allowed && counts;
    if (taken) count.pending += 1;
    if (counts) this.#scheduleFlush();
    return {
      allowed,
      headers: {
        'RateLimit-Limit': String(this.#points),
        'RateLimit-Remaining': String(Math.max(0, this.#points - used - (taken ? 1 : 0))),
        'RateLimit-Reset': String(Math.max(1, Math.ceil((windowEndsAt - now) / 1000))),
      },
    };
  }

  /** Sends what is pending now and waits for the answer (tests, shutdown). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#flushing) await this.#flushing;
    this.#flushing = this.#exchange().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
    // Counts admitted meanwhile, or kept back by a failed exchange, go with the next one.
    if ([...this.#counts.values()].some((count) => count.pending > 0)) this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#timer || this.#flushing) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#flushIntervalMs);
    this.#timer.unref();
  }

  async #exchange(): Promise<void> {
    const now = this.#now();
    const batch: CounterIncrement[] = [];
    const sent = new Map<string, WindowCount>();
    for (const [key, count] of this.#counts) {
      if (count.windowEndsAt <= now) {
        // The window is over: its counts no longer decide anything.
        this.#counts.delete(key);
        continue;
      }
      const nearLimit = count.shared >= this.#points / 2;
      if (count.pending === 0 && !nearLimit) continue;
      batch.push({ key, hits: count.pending, windowEndsAt: count.windowEndsAt });
      count.inFlight = count.pending;
      count.pending = 0;
      sent.set(key, count);
    }
    if (batch.length === 0) return;
    try {
      const totals = await withTimeout(this.#store.add(batch), STORE_TIMEOUT_MS);
      for (const [key, count] of sent) {
        count.shared = Math.max(count.shared + count.inFlight, totals.get(key) ?? 0);
        count.inFlight = 0;
      }
      if (this.#storeFailing) this.#warn('rate limit store answers again; counts are shared again');
      this.#storeFailing = false;
    } catch (error) {
      for (const count of sent.values()) {
        count.pending += count.inFlight;
        count.inFlight = 0;
      }
      if (!this.#storeFailing) {
        this.#warn(
          `rate limit counts not shared (each replica counts alone until the store answers): ${(error as Error).message}`,
        );
      }
      this.#storeFailing = true;
    }
  }
}
