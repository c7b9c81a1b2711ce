import { createLogger, serve } from '@contacts/config';
import { openServiceDatabase } from '@contacts/db';
import { createAuthServer } from './app';
import { loadAuthConfig } from './config';

/** The authorization server as its own process (how production runs it). */
const logger = createLogger('auth');
const config = await loadAuthConfig(process.env, { port: 3001 });
const database = await openServiceDatabase({ applicationName: 'auth', log: (message) => logger.info(message) });
const auth = await createAuthServer({ db: database.db, config, logger });
await serve({
  name: 'auth',
  port: config.port,
  handler: auth.app.callback(),
  logger,
  onClose: async () => {
    await auth.close();
    await database.close();
  },
});
logger.info(`auth listening on port ${config.port}, issuer ${config.issuer}`);
