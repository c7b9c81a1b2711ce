/**
 * The signals after which a process that started the embedded PostgreSQL (detached, in a
 * process group of its own, so the terminal's Ctrl-C does not reach it) must stop it itself.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** What to stop when this process ends; one set, so that one listener per signal serves every server. */
const pending = new Set<() => void>();

/**
 * Runs `stop` (synchronous: it may run while the process exits) when this process ends before
 * calling the returned release function: on exit (process.exit, an uncaught exception, the
 * event loop running dry), and on a signal that nothing else here handles — Node's default for
 * those ends the process without an 'exit' event. Where something else handles the signal
 * (serve()'s orderly shutdown: requests, then the services, then the database), it is left to
 * that. Only kill -9 escapes; the next owner then stops the orphan.
 */
export function stopOnExit(stop: () => void): () => void {
  if (pending.size === 0) {
    process.on('exit', stopAll);
    // First in line, also when the server starts after a shutdown handler was set up (a process
    // that takes over a server whose owner ended): a `once` handler is gone by the time later
    // listeners run, so only the first one can tell that someone else is on it.
    for (const signal of SIGNALS) process.prependListener(signal, onSignal);
  }
  pending.add(stop);
  return () => {
    pending.delete(stop);
    if (pending.size === 0) removeListeners();
  };
}

function stopAll(): void {
  const stops = [...pending];
  pending.clear();
  removeListeners();
  for (const stop of stops) stop();
}

function onSignal(signal: NodeJS.Signals): void {
  // This listener runs first (prepended): a count above one means someone else is on it.
  if (process.listenerCount(signal) > 1) return;
  stopAll();
  // Ends the process as the signal would have, now that no listener is left.
  process.kill(process.pid, signal);
}

function removeListeners(): void {
  process.off('exit', stopAll);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}
