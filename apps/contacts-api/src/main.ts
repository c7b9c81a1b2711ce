import { createLogger, refuseToStart, serve, serviceRuntimeFrom } from '@contacts/config';
import { dataDirectory, openServiceDatabase } from '@contacts/db';
import { createContactsApi } from './app';
import { loadContactsApiConfig } from './config';

/** The contacts API as its own process (how production runs it). */
const refuse = refuseToStart('contacts-api');
// Every setting, LOG_LEVEL included, is read before anything starts: a typo costs no connection.
const { config, logger } = await (async () => ({
  config: await loadContactsApiConfig(process.env, { port: 3002 }),
  logger: createLogger('contacts-api'),
}))().catch(refuse);
const runtime = config.runtime ?? serviceRuntimeFrom({});
const database = await openServiceDatabase({
  settings: { ...runtime.database, dataDir: dataDirectory(process.env) },
  applicationName: 'contacts-api',
  log: (message) => logger.info(message),
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
}).catch(async (error: unknown) => {
  await api.close();
  await database.close();
  return refuse(error);
});
logger.info(`contacts-api listening on port ${config.port}`);
