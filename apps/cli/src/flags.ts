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

/** A flag holding text (an OAuth client id). */
export function textFlag(values: CommandValues, flag: string): string {
  const raw = values[flag];
  if (typeof raw !== 'string' || raw.trim() === '' || raw.includes('\u0000')) {
    throw new UsageError(`--${flag} must not be empty`);
  }
  return raw.trim();
}

/**
 * The flags that give a password: `--password P`, which every user of the machine can read in
 * the process list while the command runs, or `--password-stdin`, which reads it from the first
 * line of standard input (as `docker login --password-stdin` does).
 */
export const passwordOptions = {
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
} as const;

/** The password flags, of which a command takes exactly one (Command.oneOf). */
export const PASSWORD_FLAGS = Object.keys(passwordOptions);

/** The password given by `passwordOptions` (cli.ts has checked that exactly one was). */
export async function passwordFlag(
  values: CommandValues,
  input: NodeJS.ReadableStream = process.stdin,
): Promise<string> {
  if (values['password-stdin'] !== true) return typeof values.password === 'string' ? values.password : '';
  const password = await firstLineOf(input);
  if (password === undefined) throw new UsageError('--password-stdin: standard input ended before a password');
  return password;
}

/** The first line of `input` without its line ending; undefined when it ends with nothing at all. */
async function firstLineOf(input: NodeJS.ReadableStream): Promise<string | undefined> {
  let text = '';
  let received = false;
  // A character split between two chunks is decoded whole.
  const decoder = new TextDecoder();
  for await (const chunk of input) {
    received = true;
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Buffer, { stream: true });
    // A terminal's line arrives before its end of input: stop there rather than wait for Ctrl-D.
    if (text.includes('\n')) break;
  }
  if (!received) return undefined;
  return text.split('\n')[0]?.replace(/\r$/, '');
}
