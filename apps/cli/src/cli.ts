// First: an unsupported Node.js is refused before anything else loads.
import '@contacts/config/require-supported-node';
import { parseArgs } from 'node:util';
import { InputError } from '@contacts/auth';
import { ConfigError, closestName, EnvironmentError } from '@contacts/config';
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

/** The command's options plus --help / -h, read without refusing anything (for asksForHelp). */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Whether the command's arguments ask for its help: `help` as the first, or the option --help / -h
 * anywhere. Not a flag's value: `group create --name help` names a group "help".
 */
function asksForHelp(command: Command, args: string[]): boolean {
  if (args[0] === 'help') return true;
  const { tokens } = parseArgs({
    args,
    options: { ...command.options, ...HELP_OPTION },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  return tokens.some((token) => token.kind === 'option' && token.name === 'help');
}

/** A flag that takes one value, given more than once: which value was meant is not for us to guess. */
function repeatedFlag(command: Command, args: string[]): string | undefined {
  const { tokens } = parseArgs({ args, options: command.options, strict: false, allowPositionals: true, tokens: true });
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || command.options[token.name]?.multiple) continue;
    if (seen.has(token.name)) return token.name;
    seen.add(token.name);
  }
  return undefined;
}

/**
 * The refusal of a flag the command does not take, naming the one meant when it is a slip away
 * (`--onwer`); undefined when parseArgs refused something else.
 */
function unknownFlag(command: Command, args: string[]): string | undefined {
  const { tokens } = parseArgs({ args, options: command.options, strict: false, allowPositionals: true, tokens: true });
  const unknown = tokens.find((token) => token.kind === 'option' && !Object.hasOwn(command.options, token.name));
  if (unknown?.kind !== 'option') return undefined;
  const meant = closestName(unknown.name, Object.keys(command.options));
  return `unknown flag ${unknown.rawName}${meant ? `: did you mean --${meant}?` : ''}`;
}

/** `member show`, `janitor`, …: every command as typed. */
function everyCommandName(): string[] {
  return [
    ...Object.entries(commands).flatMap(([noun, verbs]) => Object.keys(verbs).map((verb) => `${noun} ${verb}`)),
    ...Object.keys(soloCommands),
  ];
}

/**
 * Writes to stdout and waits until it is written: a result that cannot be written (a full disk,
 * a closed pipe) must not end in exit 0, least of all a secret shown only once.
 */
function writeOut(text: string, result?: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) =>
      error ? reject(new OutputError(error, lostSecretRemedy(result))) : resolve(),
    );
  });
}

class OutputError extends Error {
  constructor(cause: Error & { code?: string }, remedy: string) {
    super(
      `the command ran, but its result could not be written to standard output (${cause.code ?? cause.message}). ${remedy}`,
    );
  }
}

/** What to do about a secret the lost result showed (token create, client create, client rotate-secret), naming it. */
function lostSecretRemedy(result: unknown): string {
  const shown = (result ?? {}) as { id?: unknown; token?: unknown; client_id?: unknown; client_secret?: unknown };
  if (typeof shown.token === 'string' && typeof shown.id === 'number') {
    return `The token it showed, id ${shown.id}, is lost: revoke it (pnpm -s cli token revoke --id ${shown.id}) and create another with somewhere to write.`;
  }
  if (typeof shown.client_secret === 'string' && typeof shown.client_id === 'string') {
    return `The secret it showed, of client ${shown.client_id}, is lost: pnpm -s cli client rotate-secret --client ${shown.client_id}, with somewhere to write.`;
  }
  return 'Run it again with somewhere to write (what it did is done).';
}
// The write's callback reports the failure; without a listener the same error would also be thrown.
process.stdout.on('error', () => {});

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
    if (help) throw new UsageError(`${noun} needs a verb\n${help}`);
    const meant = closestName(noun, [...Object.keys(commands), ...Object.keys(soloCommands)]);
    throw new UsageError(`unknown command "${noun}"${meant ? `: did you mean "${meant}"?` : ''}\n${toolHelp()}`);
  }
  const command: Command | undefined = solo ?? (verb ? commands[noun]?.[verb] : undefined);
  if (!command) {
    const meant = closestName(`${noun} ${verb}`, everyCommandName());
    const hint = meant ? `: did you mean "${meant}"?` : '';
    throw new UsageError(`unknown command "${noun} ${verb}"${hint}\n${nounHelp(noun) ?? toolHelp()}`);
  }
  const rest = solo ? afterNoun : afterVerb;
  if (asksForHelp(command, rest)) return printHelp(commandHelp(command));
  const repeated = repeatedFlag(command, rest);
  if (repeated !== undefined)
    throw new UsageError(`--${repeated} given more than once\nusage: pnpm -s cli ${command.summary}`);
  let values: CommandValues;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(
      `${unknownFlag(command, rest) ?? (error as Error).message}\nusage: pnpm -s cli ${command.summary}`,
    );
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
    { needsCurrentSchema: command.needsCurrentSchema ?? true, readSettings: command.readSettings?.bind(command) },
    (context) => command.run(values, context),
  );
  await writeOut(`${JSON.stringify(result)}\n`, result);
  return 0;
}

async function printHelp(text: string): Promise<number> {
  await writeOut(text);
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
