import type { Postmaster } from './embedded-postgres-process';

/** First wait before starting a postmaster again; doubles while it fails to start, up to the last. */
const RESTART_DELAYS_MS = { first: 500, last: 5_000 } as const;

/**
 * The owner's postmaster, started again whenever it ends without being asked to: killed by the
 * OOM killer or by hand, or crashed. Without this, a `pnpm start` whose database died answered
 * 503 until someone restarted it, with nothing saying so; the services' pools and LISTEN
 * connections reconnect to the same port by themselves. After a SIGKILL the old server's
 * sessions may hold its shared memory for a moment, so a start that fails is tried again,
 * with backoff, for as long as this process owns it.
 */
export function keepPostmasterRunning(
  first: Postmaster,
  respawn: () => Postmaster,
  log: (message: string) => void,
): Pick<Postmaster, 'stop' | 'requestStop'> {
  let current = first;
  let stopping = false;
  let delay: number = RESTART_DELAYS_MS.first;
  let failedStarts = 0;

  const follow = (postmaster: Postmaster, restarted: boolean) => {
    let ran = false;
    postmaster.ready.then(
      () => {
        ran = true;
        failedStarts = 0;
        if (restarted) log(`the embedded PostgreSQL runs again (pid ${postmaster.pid})`);
      },
      (error: Error) => {
        // Said once; its exit schedules the next attempt.
        if (failedStarts++ === 0) log(`the embedded PostgreSQL could not start again yet: ${error.message}`);
      },
    );
    void postmaster.exited.then((how) => {
      if (stopping || postmaster !== current) return;
      if (ran) {
        delay = RESTART_DELAYS_MS.first;
        log(`the embedded PostgreSQL (pid ${postmaster.pid}) ended (${how}): starting it again`);
      }
      setTimeout(() => {
        if (stopping) return;
        current = respawn();
        follow(current, true);
      }, delay).unref();
      delay = Math.min(delay * 2, RESTART_DELAYS_MS.last);
    });
  };
  follow(first, false);

  return {
    requestStop() {
      stopping = true;
      current.requestStop();
    },
    async stop() {
      stopping = true;
      await current.stop();
    },
  };
}
