import { createLogger, EnvironmentError, refuseToStart, serve, serviceRuntimeFrom } from '@contacts/config';
import { databaseFailureForLog, dataDirectory, explainDatabaseFailure, openServiceDatabase } from '@contacts/db';
import pino from 'pino';
import { createContactsApi } from './app';
import { loadContactsApiConfig } from './config';

/** The contacts API as its own process (how production runs it). */
const refuse = refuseToStart('contacts-api');
// Every setting, LOG_LEVEL included, is read before anything starts: a typo costs no connection.
const { config, logger } = await (async () => ({
  config: await loadContactsApiConfig(process.env, { port: 3002 }),
  // A database that cannot be reached is logged in one line per attempt (with its code as
  // `db_code`), not with a stack that would repeat every few seconds until it answers.
  logger: createLogger('contacts-api').child(
    {},
    { serializers: { err: (error) => databaseFailureForLog(error) ?? pino.stdSerializers.err(error) } },
  ),
}))().catch(refuse);
const runtime = config.runtime ?? serviceRuntimeFrom({});
const database = await openServiceDatabase({
  settings: { ...runtime.database, dataDir: dataDirectory(process.env) },
  applicationName: 'contacts-api',
  log: (message) => logger.info(message),
  ...(runtime.migrateOnStart ? { migrate: true } : {}),
  // A database that does not exist, refuses the credentials or is not migrated stops the start;
  // one that is down may come back (it may be starting too): the service starts and waits for it.
  service: {
    name: 'contacts-api',
    unreachable: (error) =>
      logger.warn({ err: error }, 'database not reachable yet; starting anyway, /readyz answers 503 until it is'),
  },
}).catch((error: unknown) =>
  // One paragraph naming DATABASE_URL (never its password), the cause and the remedy: no stack trace.
  refuse(new EnvironmentError(explainDatabaseFailure(error, runtime.database.url, { embeddedAlternative: false }))),
);
const api = await createContactsApi({ db: database.db, config, logger });
await serve({
  name: 'contacts-api',
  port: config.port,
  handler: api.app.callback(),
  logger,
  shutdownTimeout: runtime.shutdownTimeout,
  onClose: async () => {
    await api.close();
    await database.close();
  },
}).catch(async (error: unknown) => {
  await api.close();
  await database.close();
  return refuse(error);
});
logger.info(`contacts-api listening on port ${config.port}`);
