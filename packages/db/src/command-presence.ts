import pg from 'pg';
import { driverConnectionString } from './connection';

/**
 * The connection name under which a command (a CLI run) is seen using an embedded server that
 * another process started.
 */
const COMMAND_PRESENCE = 'contacts-command';

/**
 * Commands and the command that started the server agree through one session-level advisory
 * lock: each command holds it shared for as long as it uses the server, and the starter takes it
 * exclusively before stopping the server. Checking a list of connections instead left a window:
 * a command whose connection was not yet listed at the check, but answering a moment later, lost
 * the server while it opened its pool ("the database system is shutting down").
 */
const COMMAND_PRESENCE_LOCK = 3_718_455_902;

/** How often, and how long at most, the command that started the server waits for the others. */
const POLL_MS = 200;
const LONGEST_WAIT_MS = 15 * 60_000;
const SAY_AFTER_MS = 1_000;

/**
 * A connection to the server at `url`, made as soon as it answers a query, within `waitMs`;
 * undefined when it does not answer by then, or as soon as `giveUp()` says so. With `presence`,
 * the connection carries the command's name, and its holder keeps it open while it uses the
 * server: commands that run side by side on a server none of them had running wait for one
 * another (see waitForOtherCommands) instead of the first to finish stopping it under the others.
 */
export async function answeringConnection(
  url: string,
  waitMs: number,
  options: { presence?: boolean; giveUp?: () => boolean } = {},
): Promise<pg.Client | undefined> {
  const deadline = Date.now() + waitMs;
  do {
    const client = new pg.Client({
      connectionString: driverConnectionString(url),
      connectionTimeoutMillis: 2_000,
      ...(options.presence ? { application_name: COMMAND_PRESENCE } : {}),
    });
    // A refused or dropped connection is an answer ("not yet"), not an error to report.
    client.on('error', () => {});
    try {
      await client.connect();
      if (!options.presence) {
        await client.query('select 1');
        return client;
      }
      const { rows } = await client.query<{ held: boolean }>('select pg_try_advisory_lock_shared($1) as held', [
        COMMAND_PRESENCE_LOCK,
      ]);
      // Not granted: the command that started the server is stopping it. Like a server that does
      // not answer: tried again until its owner has ended (giveUp), and then started afresh.
      if (rows[0]?.held) return client;
      throw new Error('the embedded PostgreSQL is being stopped');
    } catch {
      await client.end().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } while (Date.now() < deadline && !options.giveUp?.());
  return undefined;
}

/**
 * Before the command that started the server stops it: waits while other commands use it (at
 * most a quarter of an hour: a command that hangs does not keep the server forever), then holds
 * the presence lock exclusively, so that no command starts using the server while it stops (one
 * that tries waits for this process to end and starts a server of its own). Resolves the release
 * of that lock, to call once the server has stopped. A server that cannot be asked has nobody to
 * wait for.
 */
export async function waitForOtherCommands(url: string, log: (message: string) => void): Promise<() => Promise<void>> {
  const client = await answeringConnection(url, 0);
  if (!client) return async () => {};
  const release = async () => void (await client.end().catch(() => {}));
  try {
    const started = Date.now();
    let said = false;
    while (Date.now() < started + LONGEST_WAIT_MS) {
      const { rows } = await client.query<{ alone: boolean }>('select pg_try_advisory_lock($1) as alone', [
        COMMAND_PRESENCE_LOCK,
      ]);
      if (rows[0]?.alone) break;
      // Said once the wait is noticeable: most other commands end within a moment.
      if (!said && Date.now() - started > SAY_AFTER_MS) {
        const others = await otherCommands(client);
        log(`waiting for ${others} other command(s) using the embedded PostgreSQL to end before stopping it`);
        said = true;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch {
    // The server went away meanwhile: nothing left to wait for.
  }
  return release;
}

/** How many commands hold the presence lock now (for the message). */
async function otherCommands(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ others: number }>(
    'select count(*)::int as others from pg_stat_activity where application_name = $1',
    [COMMAND_PRESENCE],
  );
  return rows[0]?.others ?? 0;
}
