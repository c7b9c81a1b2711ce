import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Database } from '../connection';
import { JANITOR_KINDS, type JanitorKind, RETENTION_RULES, type RetentionOptions, type RetentionRule } from './rules';

// Any constant works; it only has to be the same for every process cleaning this database.
const JANITOR_ADVISORY_LOCK = 5_261_797_385;

export interface JanitorPassOptions extends RetentionOptions {
  /** Rows one DELETE removes at most (default 1,000): each statement is a short transaction. */
  batchSize?: number;
  /** Milliseconds between two batches at least (default 20). */
  pauseMs?: number;
  /**
   * After each batch the pass also rests this many times as long as the batch took (default 10):
   * it takes about a tenth of the time it touches, on however slow or busy a database, so that
   * token traffic during a pass keeps ≥ 0.9 of its rate (bench scenario 9). The pass takes
   * longer; at the default interval it still keeps up with far more traffic than one replica serves.
   */
  pauseFactor?: number;
  /** Told the size of every batch deleted (for tests and the benchmark). */
  onBatch?: (kind: JanitorKind, rows: number) => void;
}

export interface JanitorReport {
  /** False when another process held the janitor's lock: this pass did nothing. */
  ran: boolean;
  /** Rows deleted, per rule. */
  deleted: Record<JanitorKind, number>;
  duration_ms: number;
}

/**
 * One janitor pass: deletes, rule after rule, every row nobody can use any more, in batches of
 * at most `batchSize` rows. Each batch is its own statement (and so its own short transaction)
 * and skips rows that a request holds locked, so token traffic never waits on the janitor.
 *
 * At most one pass runs against a database at a time: the pass holds a session-level advisory
 * lock on a connection of its own, and a process that finds it taken skips its turn (a crashed
 * holder's lock goes with its connection).
 */
export async function runJanitorPass(db: Database, options: JanitorPassOptions): Promise<JanitorReport> {
  const started = performance.now();
  const deleted = Object.fromEntries(JANITOR_KINDS.map((kind) => [kind, 0])) as Record<JanitorKind, number>;
  const connection = (await db.client.acquireConnection()) as pg.ClientBase;
  try {
    const { rows } = await connection.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
      JANITOR_ADVISORY_LOCK,
    ]);
    if (!rows[0]?.locked) return { ran: false, deleted, duration_ms: elapsed(started) };
    try {
      for (const rule of RETENTION_RULES) {
        deleted[rule.kind] = await deleteInBatches(connection, rule, options);
      }
    } finally {
      await unlock(connection);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
  return { ran: true, deleted, duration_ms: elapsed(started) };
}

/**
 * Gives the lock back. A connection that cannot (it broke mid-pass) is closed rather than
 * returned to the pool, since a pooled connection still holding the lock would make every later
 * pass skip its turn; closing a session releases its advisory locks.
 */
async function unlock(connection: pg.ClientBase): Promise<void> {
  try {
    await connection.query('select pg_advisory_unlock($1)', [JANITOR_ADVISORY_LOCK]);
  } catch {
    await (connection as pg.Client).end().catch(() => {});
  }
}

async function deleteInBatches(
  connection: pg.ClientBase,
  rule: RetentionRule,
  options: JanitorPassOptions,
): Promise<number> {
  const batchSize = options.batchSize ?? 1_000;
  const pauseMs = options.pauseMs ?? 20;
  const pauseFactor = options.pauseFactor ?? 10;
  const bindings = rule.bindings(options);
  // The rows are picked by physical address (ctid) under FOR UPDATE SKIP LOCKED: a row a token
  // request is consuming or revoking right now is left for the next pass instead of waited for.
  const text = `delete from ${rule.table} where ctid = any(array(
    select ctid from ${rule.table} where ${numbered(rule.condition, 1)}
    limit $${bindings.length + 1} for update skip locked))`;
  let total = 0;
  for (;;) {
    const batchStarted = performance.now();
    const result = await connection.query(text, [...bindings, batchSize]);
    const count = result.rowCount ?? 0;
    total += count;
    options.onBatch?.(rule.kind, count);
    if (count < batchSize) return total;
    const rest = Math.max(pauseMs, (performance.now() - batchStarted) * pauseFactor);
    if (rest > 0) await sleep(rest);
  }
}

/** Turns the rule's `?` placeholders into PostgreSQL's `$1`, `$2`, … */
function numbered(condition: string, first: number): string {
  let next = first;
  return condition.replace(/\?/g, () => `$${next++}`);
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
