import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { watchConnections } from './connection-drain';
import { EnvironmentError } from './env';
import type { Logger } from './logger';

export interface ServeOptions {
  name: string;
  port: number;
  /** The one address to listen on (LISTEN_ADDRESS); every interface when undefined. */
  host?: string | undefined;
  handler: RequestListener;
  logger: Logger;
  /** Closes what the service holds (pools, listeners), after the HTTP server stopped. */
  onClose: () => Promise<void>;
  /** Seconds in-flight requests get to finish on shutdown (the service's SHUTDOWN_TIMEOUT); default 10. */
  shutdownTimeout?: number | undefined;
}

/**
 * The signals that end a service: SIGTERM (docker, systemd), SIGINT (Ctrl-C), SIGHUP (its
 * terminal closed). Each shuts down in order: requests, then what the service holds.
 */
const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Listens, and on a shutdown signal stops taking requests without cutting one off
 * (watchConnections), letting those in flight finish (up to `shutdownTimeout` seconds), closes
 * what the service holds, exits 0.
 * A port that cannot be used rejects with an EnvironmentError naming PORT.
 */
export async function serve(options: ServeOptions): Promise<Server> {
  const server = createServer(options.handler);
  server.keepAliveTimeout = 65_000;
  const connections = watchConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(portRefusal(error, options.port, 'PORT', options.host)));
    server.listen(options.port, options.host, () => resolve());
  });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    options.logger.info({ signal }, `${options.name} shutting down`);
    const timeout = (options.shutdownTimeout ?? 10) * 1000;
    const force = setTimeout(() => server.closeAllConnections(), timeout);
    force.unref();
    await connections.drain();
    clearTimeout(force);
    try {
      await options.onClose();
      process.exit(0);
    } catch (error) {
      options.logger.error({ err: error }, `${options.name} did not close cleanly`);
      process.exit(1);
    }
  };
  for (const signal of SHUTDOWN_SIGNALS) process.once(signal, () => void shutdown(signal));
  return server;
}

/**
 * Resolves when `port` can be listened on now, as serve() listens (on `host`, or every
 * interface); rejects with an EnvironmentError naming `setting` otherwise. For a launcher that has
 * slower things to start first (a database): a port that is taken is then reported in a second,
 * not after them.
 */
export async function ensurePortFree(port: number, setting: string, host?: string): Promise<void> {
  const probe = createTcpServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) => reject(portRefusal(error, port, setting, host)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

function portRefusal(error: Error, port: number, setting: string, host: string | undefined): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRNOTAVAIL' && host !== undefined) {
    return new EnvironmentError(
      `LISTEN_ADDRESS ${host} is not an address of this machine. Choose one it has (127.0.0.1 for this machine only), or unset it to listen on every interface.`,
    );
  }
  if (code === 'EADDRINUSE') {
    return new EnvironmentError(
      `port ${port} (${setting}) is in use by another program. Stop that program, or choose another port with ${setting}.`,
    );
  }
  if (code === 'EACCES') {
    return new EnvironmentError(
      `port ${port} (${setting}) may only be used by a privileged user on this machine. Choose a port above 1023 with ${setting}.`,
    );
  }
  return error;
}
