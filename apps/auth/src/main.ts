import { createLogger, refuseToStart, serve, serviceRuntimeFrom } from '@contacts/config';
import { openServiceDatabase } from '@contacts/db';
import { createAuthServer } from './app';
import { loadAuthConfig } from './config';

/** The authorization server as its own process (how production runs it). */
const logger = createLogger('auth');
const config = await loadAuthConfig(process.env, { port: 3001 }).catch(refuseToStart('auth'));
const runtime = config.runtime ?? serviceRuntimeFrom({});
const database = await openServiceDatabase({
  applicationName: 'auth',
  log: (message) => logger.info(message),
  poolMax: runtime.databasePoolMax,
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
});
logger.info(`auth listening on port ${config.port}, issuer ${config.issuer}`);
