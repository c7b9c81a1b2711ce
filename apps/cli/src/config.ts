import { isIP } from 'node:net';
import { type AuthConfig, loadAuthConfig } from '@contacts/auth';
import {
  ConfigError,
  createLogger,
  environmentWith,
  type Logger,
  portFrom,
  type ServiceRuntime,
  serviceRuntimeFrom,
  urlFrom,
  withErrorDescription,
} from '@contacts/config';
import { type ContactsApiConfig, loadContactsApiConfig } from '@contacts/contacts-api';
import { databaseFailureForLog, dataDirectory } from '@contacts/db';

/** Everything `pnpm start` runs with, read and validated before anything starts. */
export interface PlatformSettings {
  port: number;
  publicUrl: string;
  /** DATA_DIR: the embedded database and the development secrets. */
  dataDir: string;
  auth: AuthConfig;
  api: ContactsApiConfig;
  /** The database settings, SHUTDOWN_TIMEOUT (the same for both services: one process, one pool). */
  runtime: ServiceRuntime;
  logger: Logger;
}

/**
 * Reads PORT and PUBLIC_URL itself, and every other setting through the services' own readers
 * (loadAuthConfig, loadContactsApiConfig), so that each is defined once: a malformed value
 * throws the ConfigError naming it, in a second, before the embedded database starts.
 */
export async function platformSettingsFrom(env: NodeJS.ProcessEnv): Promise<PlatformSettings> {
  const port = portFrom(env, 'PORT', 3000);
  const publicUrl = urlFrom(env, 'PUBLIC_URL', `http://localhost:${port}`);
  // The services' environment: one base URL for both, the auth server reached in-process.
  const ownUrl = ownAddressUrl(env.LISTEN_ADDRESS, port);
  const servicesEnv = environmentWith(env, {
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    AUTH_URL: publicUrl,
    AUTH_INTERNAL_URL: ownUrl,
  });
  // As each service's own process logs (runServiceProcess): a database out of reach without its stack.
  const logger = withErrorDescription(createLogger('platform', env), databaseFailureForLog);
  // One process serves both: AUTH_URL is PUBLIC_URL, and the API introspects at this process's
  // own address, whatever was set (a service's .env left in the environment, say).
  if (env.AUTH_URL && env.AUTH_URL !== publicUrl) {
    logger.warn(
      `AUTH_URL is set ("${env.AUTH_URL}") but not used: pnpm start serves both services under one base URL, PUBLIC_URL (${publicUrl}); set PUBLIC_URL instead`,
    );
  }
  if (env.AUTH_INTERNAL_URL && env.AUTH_INTERNAL_URL !== ownUrl) {
    logger.warn(
      `AUTH_INTERNAL_URL is set ("${env.AUTH_INTERNAL_URL}") but not used: pnpm start serves the authorization server itself, and the API reaches it at ${ownUrl}`,
    );
  }
  // The auth server first: it needs all four production secrets, so its refusal names each missing one.
  const auth = await loadAuthConfig(servicesEnv, { port });
  // The introspection credentials come with the auth server's secrets: secrets.json is read once.
  const api = await loadContactsApiConfig(servicesEnv, { port, secrets: auth.secrets });
  return {
    port,
    publicUrl,
    dataDir: dataDirectory(env),
    auth,
    api,
    runtime: checkedRuntime(auth.runtime ?? serviceRuntimeFrom(servicesEnv), port),
    logger,
  };
}

/**
 * Where this process reaches itself: at LISTEN_ADDRESS when it names one address (::1, or one
 * of the host's), since nothing else answers there; on every interface (no address, 0.0.0.0,
 * ::), at 127.0.0.1. A malformed LISTEN_ADDRESS is refused by serviceRuntimeFrom.
 */
function ownAddressUrl(listenAddress: string | undefined, port: number): string {
  if (!listenAddress || listenAddress === '0.0.0.0' || listenAddress === '::' || isIP(listenAddress) === 0) {
    return `http://127.0.0.1:${port}`;
  }
  return isIP(listenAddress) === 6 ? `http://[${listenAddress}]:${port}` : `http://${listenAddress}:${port}`;
}

/** The embedded database and the product cannot listen on one port (it looked like another program's). */
function checkedRuntime(runtime: ServiceRuntime, port: number): ServiceRuntime {
  if (runtime.database.url === undefined && runtime.database.embeddedPort === port) {
    throw new ConfigError(
      `PORT and EMBEDDED_PG_PORT are both ${port}: the product and its embedded PostgreSQL need a port each`,
    );
  }
  return runtime;
}

/** CLI_DEBUG=1: an unexpected error prints its stack, not only its message. */
export function wantsStackTraces(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CLI_DEBUG);
}
