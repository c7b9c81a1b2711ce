import type { ParseArgsConfig } from 'node:util';
import type { CommandContext, CommandResult } from '../cli-context';
import { categoryCommands } from './category';
import { clientCommands } from './client';
import { demoCommand } from './demo';
import { groupCommands } from './group';
import { janitorCommand } from './janitor';
import { memberCommands } from './member';
import { migrateCommands } from './migrate';
import { tokenCommands } from './token';

/** Parsed flags: strings, lists of strings for `multiple` flags, booleans for switches. */
export type CommandValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

export interface Command {
  /** Flags the command takes; all are strings (or lists of strings). */
  options: NonNullable<ParseArgsConfig['options']>;
  /** Flags that must be present. */
  required: string[];
  /** Groups of flags of which exactly one must be present (`--password` or `--password-stdin`). */
  oneOf?: string[][];
  /** The command line, as `--help` and usage errors show it. */
  summary: string;
  /** What the command does, for `--help`. */
  description: string;
  /** False for the migration itself; every other command refuses a database that is behind. */
  needsCurrentSchema?: boolean;
  /**
   * Reads (and checks) the settings the command uses besides the database's, before the database
   * opens: a malformed one is refused first, and a misspelt one (AUDIT_RETENTON_DAYS) is warned
   * about with the others.
   */
  readSettings?(env: NodeJS.ProcessEnv): unknown;
  run(values: CommandValues, context: CommandContext): Promise<CommandResult>;
}

/** noun → verb → command. */
export const commands: Record<string, Record<string, Command>> = {
  member: memberCommands,
  group: groupCommands,
  category: categoryCommands,
  client: clientCommands,
  token: tokenCommands,
  migrate: migrateCommands,
};

/** Commands that are a single word. */
export const soloCommands: Record<string, Command> = { demo: demoCommand, janitor: janitorCommand };
