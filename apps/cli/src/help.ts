import { type Command, commands, soloCommands } from './commands/index';

const NOUNS: Record<string, string> = {
  member: 'people who sign in',
  group: 'groups of members',
  category: 'business categories of contacts',
  client: 'OAuth applications',
  token: 'personal access tokens',
  migrate: 'the database schema',
};

/** `pnpm -s cli --help`: every command, one line each. */
export function toolHelp(): string {
  const lines = [
    'usage: pnpm -s cli <noun> <verb> [--flag value …]    (pnpm -s cli <noun> <verb> --help for one command)',
    '',
    'Admin commands for member contacts. Each prints one JSON document on stdout. Exit codes: 0 done;',
    '2 bad input, a flag or a setting (message on stderr, nothing written); 1 any other failure (database down',
    'or not migrated, DATA_DIR not writable, …).',
    'Listings print {"items", "next_after", "next_command"}: run next_command for the next page (--limit, --after).',
    'A member (M: --member, --owner) is named by id or by e-mail address, compared as at sign-in.',
    'The database is DATABASE_URL, or the embedded one of `pnpm start` (started for the command if need be).',
    '',
  ];
  for (const [noun, verbs] of Object.entries(commands)) {
    lines.push(`${noun} — ${NOUNS[noun] ?? ''}`);
    for (const command of Object.values(verbs)) lines.push(`  ${command.summary}`);
  }
  for (const command of Object.values(soloCommands)) lines.push(`${command.summary}`, `  ${command.description}`);
  return `${lines.join('\n')}\n`;
}

/** `pnpm -s cli <noun> --help`: the noun's commands with what each does. */
export function nounHelp(noun: string): string | undefined {
  const verbs = commands[noun];
  if (!verbs) return undefined;
  const lines = [`pnpm -s cli ${noun} <verb> — ${NOUNS[noun] ?? ''}`, ''];
  for (const command of Object.values(verbs)) lines.push(`  ${command.summary}`, `      ${command.description}`);
  return `${lines.join('\n')}\n`;
}

/** `pnpm -s cli <noun> <verb> --help`. */
export function commandHelp(command: Command): string {
  return `usage: pnpm -s cli ${command.summary}\n\n${command.description}\n`;
}
