// First: an unsupported Node.js is refused before anything else loads.
import '@contacts/config/require-supported-node';
import { type AuthServer, createAuthServer } from '@contacts/auth';
import {
  asOutermostProxy,
  ConfigError,
  describeMisspelling,
  EnvironmentError,
  ensurePortFree,
  isContactsApiPath,
  refuseToStart,
  SettingReads,
  serve,
  withMisspellingHints,
} from '@contacts/config';
import { type ContactsApi, createContactsApi } from '@contacts/contacts-api';
import { explainDatabaseFailure, openServiceDatabase, type ServiceDatabase } from '@contacts/db';
import { platformSettingsFrom } from './config';
import { alreadyRunningOn, recordRunningPlatform } from './running-platform';

/**
 * `pnpm start`: the whole product in one process for a developer's machine. Reads every
 * setting, checks that PORT is free, starts the database (embedded unless DATABASE_URL is
 * set), migrates it, and serves both services under one base URL, dispatching by path as the
 * production gateway does (its forwarding headers too). Whatever stops it, it stops in order: requests, services, database.
 */
const refuse = refuseToStart('pnpm start');
const reads = new SettingReads(process.env);
const { port, publicUrl, dataDir, runtime, logger, ...configs } = await platformSettingsFrom(reads.env).catch(
  (error: unknown) => refuse(withMisspellingHints(error, reads)),
);
for (const misspelling of reads.misspellings()) logger.warn(misspelling, describeMisspelling(misspelling));
// Another program on PORT (often a `pnpm start` already running) is reported now, not after the database started.
await ensurePortFree(port, 'PORT', runtime.listenAddress).catch((error: unknown) => {
  const running = alreadyRunningOn(dataDir, port);
  return refuse(running ? new EnvironmentError(running) : error);
});

let database: ServiceDatabase;
try {
  database = await openServiceDatabase({
    settings: { ...runtime.database, dataDir },
    applicationName: 'platform',
    mode: 'own',
    migrate: true,
    log: (message) => logger.debug(message),
    // The embedded PostgreSQL died under the product and is started again: an operator wants to know.
    warn: (message) => logger.warn(message),
  });
} catch (error) {
  // The usual causes are the machine's (permissions, a port in use, a server that is down):
  // a sentence that names the cause and the remedy helps more than a stack trace.
  process.stderr.write(`pnpm start: ${explainDatabaseFailure(error, runtime.database.url)}\n`);
  process.exit(1);
}
let auth: AuthServer | undefined;
let api: ContactsApi | undefined;
try {
  auth = await createAuthServer({ db: database.db, config: configs.auth, logger: logger.child({ service: 'auth' }) });
  api = await createContactsApi({
    db: database.db,
    config: configs.api,
    logger: logger.child({ service: 'contacts-api' }),
  });
  const authHandler = auth.app.callback();
  const apiHandler = api.app.callback();
  const services = [auth, api];
  await serve({
    name: 'platform',
    port,
    host: runtime.listenAddress,
    handler: (req, res) => {
      asOutermostProxy(req);
      return isContactsApiPath(req.url ?? '/') ? apiHandler(req, res) : authHandler(req, res);
    },
    logger,
    shutdownTimeout: runtime.shutdownTimeout,
    onClose: async () => {
      await Promise.all(services.map((service) => service.close()));
      await database.close();
    },
  });
  recordRunningPlatform(dataDir, publicUrl, port);
  logger.info(
    `Member contacts is running at ${publicUrl} (database: ${databaseDescription(database)}). ` +
      `Sign in at ${publicUrl}/login, API docs at ${publicUrl}/docs. Ctrl-C stops everything.`,
  );
} catch (error) {
  await Promise.all([auth?.close(), api?.close()]);
  await database.close();
  // PORT taken in the moment since it was checked: the same one line.
  if (error instanceof ConfigError) refuse(error);
  logger.error({ err: error }, 'could not start');
  process.exit(1);
}

/** Which database, and for the embedded one where its data is (as root, not always under DATA_DIR). */
function databaseDescription(database: ServiceDatabase): string {
  return database.dataFolder === undefined ? database.kind : `${database.kind}, its data in ${database.dataFolder}`;
}
