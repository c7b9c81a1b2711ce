import { ApiError } from './errors';

/**
 * The bytes of uploaded files this process holds in memory at once (it draws on the budget from
 * reading a file until its request is answered). A 12 MB image costs about three times its size
 * while it is stored: the file, the driver's copy in its message, and their transient growth.
 * Requests beyond the budget wait their turn, first come first served, at most
 * UPLOAD_MEMORY_WAIT_MS; then 503 with Retry-After, nothing written. The uploads themselves wait
 * on disk (upload-spool.ts), so a client that sends slowly holds no share of it.
 */
export const UPLOAD_MEMORY_BYTES = 48 * 1024 * 1024;
export const UPLOAD_MEMORY_WAIT_MS = 20_000;
/** Memory per uploaded byte while it is checked and written (the README's Images paragraph under Contacts API v4). */
export const UPLOAD_MEMORY_PER_BYTE = 3;

export class MemoryBudget {
  #free: number;
  readonly #waiting: Array<{ bytes: number; grant: () => void }> = [];

  constructor(
    readonly capacity: number,
    readonly maxWaitMs: number,
  ) {
    this.#free = capacity;
  }

  /**
   * Takes `bytes` of the budget (all of it for a request larger than the whole) when they are
   * free and nobody waits before; answers the function that gives them back.
   */
  async reserve(requested: number): Promise<() => void> {
    const bytes = Math.min(requested, this.capacity);
    if (this.#waiting.length > 0 || this.#free < bytes) await this.#wait(bytes);
    else this.#free -= bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#free += bytes;
      this.#grantWaiting();
    };
  }

  #wait(bytes: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter = {
        bytes,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        // The head may have been the one holding others back.
        this.#grantWaiting();
        reject(
          new ApiError(
            503,
            'service_unavailable',
            'This server is busy storing other uploads; send the request again in a few seconds. Nothing was written.',
            { headers: { 'Retry-After': '5' } },
          ),
        );
      }, this.maxWaitMs);
      this.#waiting.push(waiter);
    });
  }

  #grantWaiting(): void {
    for (let next = this.#waiting[0]; next && this.#free >= next.bytes; next = this.#waiting[0]) {
      this.#waiting.shift();
      this.#free -= next.bytes;
      next.grant();
    }
  }
}

/** This process's budget for uploads held in memory (memory is the process's, so is its budget). */
export const uploadMemory = new MemoryBudget(UPLOAD_MEMORY_BYTES, UPLOAD_MEMORY_WAIT_MS);
