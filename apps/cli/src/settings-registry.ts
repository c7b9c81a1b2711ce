import { loadAuthConfig } from '@contacts/auth';
import { createLogger, SERVICE_NAMES, SettingReads } from '@contacts/config';
import { loadContactsApiConfig } from '@contacts/contacts-api';
import { readCommandSettings } from './cli-context';
import { type Command, commands, soloCommands } from './commands/index';
import { platformSettingsFrom, wantsStackTraces } from './config';

/**
 * The settings each process reads, found by running that process's own readers through a
 * SettingReads (the record the misspelt-setting warning keeps) rather than written down again:
 * a setting added to a reader is in the registry at once. The README's Configuration table and
 * docker-compose.yml are tested against it (cli's settings-documented.test.ts, gateway's
 * compose.test.ts), so a setting cannot be added without its documentation.
 *
 * The readers are the ones each process runs before it opens anything; where a process reads
 * its settings inline (runServiceProcess: loadConfig, then the logger), the reader repeats that.
 */
export type SettingsProcess = 'auth' | 'contacts-api' | 'cli' | 'start';

const READERS: Record<SettingsProcess, (env: NodeJS.ProcessEnv) => Promise<unknown>> = {
  // apps/auth/src/main.ts and apps/contacts-api/src/main.ts, through runServiceProcess.
  auth: async (env) => {
    await loadAuthConfig(env, { port: 3001 });
    return createLogger(SERVICE_NAMES.auth, env);
  },
  'contacts-api': async (env) => {
    await loadContactsApiConfig(env, { port: 3002 });
    return createLogger(SERVICE_NAMES.contactsApi, env);
  },
  // Every command's settings (docker-compose's migrate service runs `migrate latest`, and `janitor`
  // from cron), and CLI_DEBUG, which an unexpected error reads.
  cli: async (env) => {
    for (const command of everyCommand()) readCommandSettings(env, command.readSettings?.bind(command));
    return wantsStackTraces(env);
  },
  // apps/cli/src/start.ts (`pnpm start`).
  start: (env) => platformSettingsFrom(env),
};

function everyCommand(): Command[] {
  return [...Object.values(commands).flatMap((verbs) => Object.values(verbs)), ...Object.values(soloCommands)];
}

/**
 * The names `process` reads from `env`, in the order first read. In development (no NODE_ENV)
 * a service generates its secrets into DATA_DIR: give one that may be written to.
 */
export async function settingsReadBy(process: SettingsProcess, env: NodeJS.ProcessEnv): Promise<string[]> {
  const reads = new SettingReads(env);
  await READERS[process](reads.env);
  return reads.names();
}

export const SETTINGS_PROCESSES: readonly SettingsProcess[] = ['auth', 'contacts-api', 'cli', 'start'];
