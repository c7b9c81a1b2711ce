import {
  createLogger,
  EnvironmentError,
  refuseToStart,
  SERVICE_NAMES,
  serve,
  serviceRuntimeFrom,
} from '@contacts/config';
import { databaseFailureForLog, dataDirectory, openOwnServiceDatabase, ServiceDatabaseRefused } from '@contacts/db';
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
const database = await openOwnServiceDatabase(
  SERVICE_NAMES.contactsApi,
  runtime,
  dataDirectory(process.env),
  logger,
).catch((error: unknown) =>
  refuse(error instanceof ServiceDatabaseRefused ? new EnvironmentError(error.message) : error),
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
