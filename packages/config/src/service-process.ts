import type Koa from 'koa';
import pino from 'pino';
import { refuseToStart } from './env';
import { createLogger, type Logger } from './logger';
import { describeMisspelling, SettingReads, withMisspellingHints } from './misspelt-settings';
import { serve } from './serve';
import { type ServiceRuntime, serviceRuntimeFrom } from './service-runtime';

/** What a service's own process holds open while it runs. */
interface Closable {
  close(): Promise<void>;
}

/** A service as production runs it, one process per replica (auth, contacts-api). */
export interface ServiceProcess<Config extends { port: number; runtime?: ServiceRuntime }, Db> {
  name: string;
  /** Every setting, LOG_LEVEL included; a ConfigError refuses to start before anything opens. */
  loadConfig(env: NodeJS.ProcessEnv): Promise<Config>;
  /**
   * How a failure the log repeats (a database that is not up yet, tried every few seconds) is
   * written: one line with its code rather than a stack; undefined keeps pino's usual form.
   */
  describeError?(error: unknown): object | undefined;
  /** The service's database; an EnvironmentError (one paragraph: cause and remedy) refuses to start. */
  openDatabase(runtime: ServiceRuntime, logger: Logger): Promise<Closable & { db: Db }>;
  createApp(dependencies: { db: Db; config: Config; logger: Logger }): Promise<Closable & { app: Koa }>;
  /** Said after "<name> listening on port N" (the auth server's issuer). */
  describeListening?(config: Config): string;
}

/**
 * Runs a service until a shutdown signal: settings first (a typo costs no connection), then
 * the database, the app and the port. Whatever the operator can fix (a setting, a database that
 * refuses, a port in use) ends in one paragraph on stderr and exit 1, never a stack trace.
 */
export async function runServiceProcess<Config extends { port: number; runtime?: ServiceRuntime }, Db>(
  service: ServiceProcess<Config, Db>,
): Promise<void> {
  // The process's own environment, as everything a service opens reads it (DATA_DIR included).
  const reads = new SettingReads(process.env);
  const refuse = refuseToStart(service.name);
  const { config, logger } = await (async () => ({
    config: await service.loadConfig(reads.env),
    logger: withErrorDescription(createLogger(service.name, reads.env), service.describeError),
  }))().catch((error: unknown) => refuse(withMisspellingHints(error, reads)));
  for (const misspelling of reads.misspellings()) logger.warn(misspelling, describeMisspelling(misspelling));
  const runtime = config.runtime ?? serviceRuntimeFrom({});
  const database = await service.openDatabase(runtime, logger).catch(refuse);
  // A setting only the app's libraries can judge (oidc-provider's keys) is refused as one line too.
  const running = await service.createApp({ db: database.db, config, logger }).catch(async (error: unknown) => {
    await database.close();
    return refuse(error);
  });
  const closeAll = async () => {
    await running.close();
    await database.close();
  };
  await serve({
    name: service.name,
    port: config.port,
    host: runtime.listenAddress,
    handler: running.app.callback(),
    logger,
    shutdownTimeout: runtime.shutdownTimeout,
    onClose: closeAll,
  }).catch(async (error: unknown) => {
    await closeAll();
    return refuse(error);
  });
  const described = service.describeListening?.(config);
  logger.info(`${service.name} listening on port ${config.port}${described ? `, ${described}` : ''}`);
}

/**
 * The logger with `describe` as the serializer of `err` where it knows the error (a database out
 * of reach: one line and its code, no stack); other errors keep pino's (with their stack).
 */
export function withErrorDescription(logger: Logger, describe: ServiceProcess<never, never>['describeError']): Logger {
  if (!describe) return logger;
  return logger.child({}, { serializers: { err: (error) => describe(error) ?? pino.stdSerializers.err(error) } });
}
