import { isRowId } from '@contacts/db';
import { UsageError } from './cli-context';
import type { CommandValues } from './commands/index';

/** A flag holding a row id (`--member 12`): a positive integer, or a usage error naming the flag. */
export function rowIdFlag(values: CommandValues, flag: string): number {
  const raw = values[flag];
  const id = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!isRowId(id)) throw new UsageError(`--${flag} must be a positive integer id, not ${JSON.stringify(raw)}`);
  return id;
}

/** The same, for an optional filter. */
export function optionalRowIdFlag(values: CommandValues, flag: string): number | undefined {
  return values[flag] === undefined ? undefined : rowIdFlag(values, flag);
}

/** A flag holding text (an OAuth client id). */
export function textFlag(values: CommandValues, flag: string): string {
  const raw = values[flag];
  if (typeof raw !== 'string' || raw.trim() === '' || raw.includes('\u0000')) {
    throw new UsageError(`--${flag} must not be empty`);
  }
  return raw.trim();
}
