import { createLogger, refuseToStart, serve, serviceRuntimeFrom } from '@contacts/config';
import { openServiceDatabase } from '@contacts/db';
import { createContactsApi } from './app';
import { loadContactsApiConfig } from './config';

/** The contacts API as its own process (how production runs it). */
const logger = createLogger('contacts-api');
const config = await loadContactsApiConfig(process.env, { port: 3002 }).catch(refuseToStart('contacts-api'));
const runtime = config.runtime ?? serviceRuntimeFrom({});
const database = await openServiceDatabase({
  applicationName: 'contacts-api',
  log: (message) => logger.info(message),
  poolMax: runtime.databasePoolMax,
  ...(runtime.migrateOnStart ? { migrate: true } : {}),
});
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
});
logger.info(`contacts-api listening on port ${config.port}`);
