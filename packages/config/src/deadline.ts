/**
 * `work`'s outcome, or a rejection ("no answer within N ms") once `ms` have passed. The work is not
 * cancelled, only no longer waited for: for a store or a database that stops answering without
 * closing the connection, where the caller has an answer of its own to give in time (a probe, a
 * scrape, a rate limit deciding from memory).
 */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
