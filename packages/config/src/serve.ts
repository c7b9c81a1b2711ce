import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from './logger';

export interface ServeOptions {
  name: string;
  port: number;
  handler: RequestListener;
  logger: Logger;
  /** Closes what the service holds (pools, listeners), after the HTTP server stopped. */
  onClose: () => Promise<void>;
  /** Seconds in-flight requests get to finish on shutdown (the service's SHUTDOWN_TIMEOUT); default 10. */
  shutdownTimeout?: number | undefined;
}

/**
 * Listens, and on SIGTERM or SIGINT stops accepting connections, lets in-flight requests
 * finish (up to `shutdownTimeout` seconds), closes what the service holds, exits 0.
 */
export async function serve(options: ServeOptions): Promise<Server> {
  const server = createServer(options.handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, () => resolve());
  });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    options.logger.info({ signal }, `${options.name} shutting down`);
    const timeout = (options.shutdownTimeout ?? 10) * 1000;
    const force = setTimeout(() => server.closeAllConnections(), timeout);
    force.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    clearTimeout(force);
    try {
      await options.onClose();
      process.exit(0);
    } catch (error) {
      options.logger.error({ err: error }, `${options.name} did not close cleanly`);
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return server;
}
