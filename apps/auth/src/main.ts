import { createLogger, refuseToStart, serve, serviceRuntimeFrom } from '@contacts/config';
import { dataDirectory, openServiceDatabase } from '@contacts/db';
import { createAuthServer } from './app';
import { loadAuthConfig } from './config';

/** The authorization server as its own process (how production runs it). */
const refuse = refuseToStart('auth');
// Every setting, LOG_LEVEL included, is read before anything starts: a typo costs no connection.
const { config, logger } = await (async () => ({
  config: await loadAuthConfig(process.env, { port: 3001 }),
  logger: createLogger('auth'),
}))().catch(refuse);
const runtime = config.runtime ?? serviceRuntimeFrom({});
const database = await openServiceDatabase({
  settings: { ...runtime.database, dataDir: dataDirectory(process.env) },
  applicationName: 'auth',
  log: (message) => logger.info(message),
  ...(runtime.migrateOnStart ? { migrate: true } : {}),
});
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
