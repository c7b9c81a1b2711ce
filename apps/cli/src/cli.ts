import { parseArgs } from 'node:util';
import { InputError } from '@contacts/auth';
import { UsageError, withCommandContext } from './cli-context';
import { type CommandValues, commands, soloCommands } from './commands/index';

/**
 * `pnpm -s cli <noun> <verb> --flag value`: prints exactly one JSON document on stdout and
 * exits 0; on bad input prints a message on stderr, exits 2 and writes nothing.
 */
async function main(argv: string[]): Promise<number> {
  const [noun, ...afterNoun] = argv;
  const solo = noun ? soloCommands[noun] : undefined;
  const [verb, ...afterVerb] = afterNoun;
  const command = solo ?? (noun && verb ? commands[noun]?.[verb] : undefined);
  const rest = solo ? afterNoun : afterVerb;
  if (!command) throw new UsageError(`usage: pnpm -s cli <command>\n${usage()}`);
  let values: CommandValues;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: pnpm -s cli ${command.summary}`);
  }
  const missing = command.required.filter((flag) => values[flag] === undefined);
  if (missing.length > 0)
    throw new UsageError(`missing --${missing.join(', --')}\nusage: pnpm -s cli ${command.summary}`);
  const result = await withCommandContext(process.env, (context) => command.run(values, context));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}

function usage(): string {
  return [...Object.values(commands).flatMap((verbs) => Object.values(verbs)), ...Object.values(soloCommands)]
    .map((command) => `  ${command.summary}`)
    .join('\n');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof InputError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
