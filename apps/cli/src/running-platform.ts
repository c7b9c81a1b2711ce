import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '@contacts/db';

/**
 * Which URL the `pnpm start` of a DATA_DIR serves, for the commands run beside it in another
 * terminal (`pnpm -s cli demo` prints links into it): they do not share its environment, so
 * `PORT=8080 pnpm start` would otherwise be told apart only by repeating PORT for every command.
 * Kept in DATA_DIR/platform.json while that process runs.
 */
interface PlatformRecord {
  pid: number;
  publicUrl: string;
  port?: number;
}

const recordIn = (dataDir: string) => path.join(dataDir, 'platform.json');

/** Records this process as the one serving `publicUrl` on `port` for `dataDir`, until it exits. */
export function recordRunningPlatform(dataDir: string, publicUrl: string, port: number): void {
  const file = recordIn(dataDir);
  try {
    writeFileSync(file, JSON.stringify({ pid: process.pid, publicUrl, port } satisfies PlatformRecord));
  } catch {
    return; // A convenience for other commands: never a reason not to serve.
  }
  process.on('exit', () => {
    if (readRecord(file)?.pid === process.pid) rmSync(file, { force: true });
  });
}

/** The public URL of the `pnpm start` running for `dataDir`, when one runs. */
export function runningPlatformUrl(dataDir: string): string | undefined {
  const record = readRecord(recordIn(dataDir));
  return record && isProcessAlive(record.pid) ? record.publicUrl : undefined;
}

/**
 * Why `pnpm start` cannot have `port`, when the `pnpm start` of this very DATA_DIR holds it: said
 * as that, not as "another program" (which it is not, and which sent people looking for one).
 */
export function alreadyRunningOn(dataDir: string, port: number): string | undefined {
  const record = readRecord(recordIn(dataDir));
  if (!record || record.port !== port || !isProcessAlive(record.pid)) return undefined;
  return (
    `pnpm start is already running for this DATA_DIR at ${record.publicUrl} (process ${record.pid}, port ${port}). ` +
    'Use that one, or stop it (Ctrl-C in its terminal) first; a second one needs a PORT of its own.'
  );
}

function readRecord(file: string): PlatformRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<PlatformRecord>;
    return Number.isInteger(parsed.pid) && typeof parsed.publicUrl === 'string'
      ? {
          pid: parsed.pid as number,
          publicUrl: parsed.publicUrl,
          ...(Number.isInteger(parsed.port) ? { port: parsed.port as number } : {}),
        }
      : undefined;
  } catch {
    return undefined;
  }
}
