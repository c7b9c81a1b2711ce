// First: an unsupported Node.js is refused before anything else loads.
import '@contacts/config/require-supported-node';
import { parseArgs } from 'node:util';
import { InputError } from '@contacts/auth';
import { ConfigError, EnvironmentError } from '@contacts/config';
import { DatabaseNotReadyError, UsageError, withCommandContext } from './cli-context';
import { type Command, type CommandValues, commands, soloCommands } from './commands/index';
import { wantsStackTraces } from './config';
import { commandHelp, nounHelp, toolHelp } from './help';

/**
 * `pnpm -s cli <noun> <verb> --flag value`: prints exactly one JSON document on stdout and
 * exits 0; on bad input (a flag, or a setting such as DATABASE_URL or LOG_LEVEL) prints a
 * message on stderr, exits 2 and writes nothing; on any other failure prints a message on
 * stderr and exits 1. `--help` prints help on stdout (exit 0).
 */
const HELP = new Set(['--help', '-h', 'help']);

async function main(argv: string[]): Promise<number> {
  const [noun, ...afterNoun] = argv;
  if (HELP.has(noun ?? '')) return printHelp(toolHelp());
  // Nothing to do is a usage error (as a noun without its verb is): a script that lost its
  // arguments fails instead of passing with the help text on stdout.
  if (noun === undefined) throw new UsageError(`give a command\n${toolHelp()}`);
  const solo = soloCommands[noun];
  const [verb, ...afterVerb] = afterNoun;
  if (!solo && (verb === undefined || HELP.has(verb))) {
    const help = nounHelp(noun);
    if (help && verb !== undefined) return printHelp(help);
    throw new UsageError(help ? `${noun} needs a verb\n${help}` : `unknown command "${noun}"\n${toolHelp()}`);
  }
  const command: Command | undefined = solo ?? (verb ? commands[noun]?.[verb] : undefined);
  if (!command) throw new UsageError(`unknown command "${noun} ${verb}"\n${nounHelp(noun) ?? toolHelp()}`);
  const rest = solo ? afterNoun : afterVerb;
  if (rest.some((arg) => HELP.has(arg))) return printHelp(commandHelp(command));
  let values: CommandValues;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: pnpm -s cli ${command.summary}`);
  }
  const missing = command.required.filter((flag) => values[flag] === undefined);
  if (missing.length > 0)
    throw new UsageError(`missing --${missing.join(', --')}\nusage: pnpm -s cli ${command.summary}`);
  for (const group of command.oneOf ?? []) {
    const given = group.filter((flag) => values[flag] !== undefined);
    if (given.length !== 1) {
      const problem = given.length === 0 ? 'missing' : 'give only one of';
      throw new UsageError(`${problem} --${group.join(' or --')}\nusage: pnpm -s cli ${command.summary}`);
    }
  }
  const result = await withCommandContext(
    process.env,
    { needsCurrentSchema: command.needsCurrentSchema ?? true },
    (context) => command.run(values, context),
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}

function printHelp(text: string): number {
  process.stdout.write(text);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // The machine's doing (the database, a DATA_DIR that cannot be written): one paragraph, exit 1.
    if (error instanceof DatabaseNotReadyError || error instanceof EnvironmentError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(1);
    }
    // The operator's input, a flag or a setting (ConfigError names the variable): exit 2.
    if (error instanceof UsageError || error instanceof InputError || error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(2);
    }
    // Unexpected: the message, and the stack only when asked for (CLI_DEBUG=1).
    const { message, stack } = error as Error;
    process.stderr.write(`error: ${wantsStackTraces(process.env) ? (stack ?? message) : (message ?? String(error))}\n`);
    process.exit(1);
  },
);
