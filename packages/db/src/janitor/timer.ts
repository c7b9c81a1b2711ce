import type { Database } from '../connection';
import { runJanitorPass } from './pass';
import { JANITOR_KINDS, type JanitorKind } from './rules';
import { estimatedTableRows } from './table-rows';

export interface JanitorSchedule {
  /** Seconds between two passes; 0: the janitor does not run in this process. */
  intervalSeconds: number;
  auditRetentionDays: number;
  syncTokenTtlSeconds: number;
}

/** What became of one timed pass, for metrics. */
export interface JanitorOutcome {
  outcome: 'ran' | 'skipped' | 'failed';
  deleted: Record<JanitorKind, number>;
}

/** A process's janitor, and what its metrics read. */
export interface JanitorTimer {
  kinds: readonly JanitorKind[];
  /** Estimated rows of the growing tables (see estimatedTableRows). */
  tableRows(): Promise<Record<string, number>>;
  /** Called after every pass of this process. */
  onPass(listener: (outcome: JanitorOutcome) => void): void;
  /** Cancels the next pass and waits for a running one to finish. */
  stop(): Promise<void>;
}

/** The part of a pino logger the janitor writes to: a pass's report as fields, not text in the message. */
export interface JanitorLog {
  info(fields: object, message: string): void;
  warn(message: string): void;
}

/**
 * Runs a janitor pass every `intervalSeconds` in this process (none when the schedule is absent
 * or its interval 0). The first pass comes after a random part of the interval, so that replicas
 * started together do not all try at once (only one would run anyway: see runJanitorPass). The
 * timer never keeps the process alive.
 */
export function startJanitor(db: Database, schedule: JanitorSchedule | undefined, log: JanitorLog): JanitorTimer {
  const listeners: Array<(outcome: JanitorOutcome) => void> = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const passThenWait = async (settings: JanitorSchedule) => {
    let outcome: JanitorOutcome;
    try {
      const report = await runJanitorPass(db, settings);
      outcome = { outcome: report.ran ? 'ran' : 'skipped', deleted: report.deleted };
      if (report.ran) log.info({ janitor: report }, 'janitor pass');
    } catch (error) {
      outcome = { outcome: 'failed', deleted: noDeletions() };
      log.warn(`janitor pass failed: ${(error as Error).message}`);
    }
    for (const listener of listeners) listener(outcome);
    wait(settings, settings.intervalSeconds * 1000);
  };
  const wait = (settings: JanitorSchedule, delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = passThenWait(settings).finally(() => {
        running = undefined;
      });
    }, delayMs);
    timer.unref();
  };
  if (schedule && schedule.intervalSeconds > 0) wait(schedule, Math.random() * schedule.intervalSeconds * 1000);

  return {
    kinds: JANITOR_KINDS,
    tableRows: () => estimatedTableRows(db),
    onPass: (listener) => {
      listeners.push(listener);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

function noDeletions(): Record<JanitorKind, number> {
  return Object.fromEntries(JANITOR_KINDS.map((kind) => [kind, 0])) as Record<JanitorKind, number>;
}
