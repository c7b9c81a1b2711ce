import { createAuthServer, loadAuthConfig } from '@contacts/auth';
import { createLogger, isContactsApiPath, refuseToStart, serve } from '@contacts/config';
import { createContactsApi, loadContactsApiConfig } from '@contacts/contacts-api';
import { openServiceDatabase, type ServiceDatabase } from '@contacts/db';
import { type PlatformSettings, platformSettingsFrom } from './config';
import { explainDatabaseFailure } from './database-failure';

/**
 * `pnpm start`: the whole product in one process for a developer's machine. Starts the
 * database (embedded unless DATABASE_URL is set), migrates it, and serves both services under
 * one base URL, dispatching by path as the production gateway does.
 */
const logger = createLogger('platform');
const { port, publicUrl, env }: PlatformSettings = (() => {
  try {
    return platformSettingsFrom(process.env);
  } catch (error) {
    return refuseToStart('pnpm start')(error);
  }
})();

let database: ServiceDatabase;
try {
  database = await openServiceDatabase({
    env,
    applicationName: 'platform',
    mode: 'own',
    migrate: true,
    log: (message) => logger.debug(message),
  });
} catch (error) {
  // The usual causes are the machine's (permissions, a port in use, a server that is down):
  // a sentence that names the cause and the remedy helps more than a stack trace.
  process.stderr.write(`pnpm start: ${explainDatabaseFailure(error, env)}\n`);
  process.exit(1);
}
try {
  const auth = await createAuthServer({
    db: database.db,
    config: await loadAuthConfig(env, { port }),
    logger: logger.child({ service: 'auth' }),
  });
  const api = await createContactsApi({
    db: database.db,
    config: await loadContactsApiConfig(env, { port }),
    logger: logger.child({ service: 'contacts-api' }),
  });
  const authHandler = auth.app.callback();
  const apiHandler = api.app.callback();
  await serve({
    name: 'platform',
    port,
    handler: (req, res) => (isContactsApiPath(req.url ?? '/') ? apiHandler(req, res) : authHandler(req, res)),
    logger,
    onClose: async () => {
      await Promise.all([auth.close(), api.close()]);
      await database.close();
    },
  });
  logger.info(
    `Member contacts is running at ${publicUrl} (database: ${database.kind}). ` +
      `Sign in at ${publicUrl}/login, API docs at ${publicUrl}/docs. Ctrl-C stops everything.`,
  );
} catch (error) {
  logger.error({ err: error }, 'could not start');
  await database.close();
  process.exit(1);
}
