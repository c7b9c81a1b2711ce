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
import { createAuthServer } from './app';
import { loadAuthConfig } from './config';

/** The authorization server as its own process (how production runs it). */
const refuse = refuseToStart('auth');
// Every setting, LOG_LEVEL included, is read before anything starts: a typo costs no connection.
const { config, logger } = await (async () => ({
  config: await loadAuthConfig(process.env, { port: 3001 }),
  // A database that cannot be reached is logged in one line per attempt (with its code as
  // `db_code`), not with a stack that would repeat every few seconds until it answers.
  logger: createLogger('auth').child(
    {},
    { serializers: { err: (error) => databaseFailureForLog(error) ?? pino.stdSerializers.err(error) } },
  ),
}))().catch(refuse);
const runtime = config.runtime ?? serviceRuntimeFrom({});
const database = await openOwnServiceDatabase(SERVICE_NAMES.auth, runtime, dataDirectory(process.env), logger).catch(
  (error: unknown) => refuse(error instanceof ServiceDatabaseRefused ? new EnvironmentError(error.message) : error),
);
const auth = await createAuthServer({ db: database.db, config, logger });
await serve({
  name: 'auth',
  port: config.port,
  handler: auth.app.callback(),
  logger,
  shutdownTimeout: runtime.shutdownTimeout,
  onClose: async () => {
    await auth.close();
    await database.close();
  },
}).catch(async (error: unknown) => {
  await auth.close();
  await database.close();
  return refuse(error);
});
logger.info(`auth listening on port ${config.port}, issuer ${config.issuer}`);
