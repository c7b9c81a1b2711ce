import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A connection that has carried nothing for this long is closed by the server; a client may still
 * send on it until then. Longer than the gateway keeps an idle connection to a replica (its
 * upstreams' `keepalive_timeout 2s`), so that the gateway closes its idle connections itself.
 */
export const QUIET_MS = 2_500;

/**
 * Stopping an HTTP server without cutting a request off. Closing a kept-alive connection that
 * looks idle races a request its client is sending on it at that moment, and a proxy does not
 * send a POST cut off that way to another replica (the gateway answered 502: a few creates in ten
 * thousand under load when a replica stopped with Node's server.close(), which closes every idle
 * connection at once). So a stopping server
 *  1. stops accepting at once: a new connection is refused, which a proxy retries elsewhere,
 *     POSTs too (a proxy with connections to spare opens few new ones: accepting longer, with
 *     every answer closing its connection, made it open many, and a connection that completes
 *     while the listener closes is reset);
 *  2. answers what arrives on the connections it has, each answer closing its connection
 *     (`Connection: close`), which a client expects: a proxy's pooled connections end after an
 *     answer;
 *  3. closes, every 50 ms, each connection that has been quiet (no request, no answer) for
 *     QUIET_MS, until none is left.
 * What remains is the kernel's: a connection whose handshake completes as the listener closes is
 * reset, and a POST sent on it is lost (README, Scaling). Track from the start with watchConnections().
 */
export function watchConnections(server: Server): { drain(): Promise<void> } {
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });

  return {
    async drain() {
      const closed = closeListener(server);
      const lastHeard = new WeakMap<Socket, number>();
      for (const socket of connections) {
        lastHeard.set(socket, Date.now());
        socket.on('data', () => lastHeard.set(socket, Date.now()));
        // An answer still being made closes its connection too.
        const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
        if (pending && !pending.headersSent) pending.shouldKeepAlive = false;
      }
      server.prependListener('request', (_request, response) => {
        response.shouldKeepAlive = false;
      });
      while (connections.size > 0) {
        const now = Date.now();
        for (const socket of connections) {
          // Quiet counts from the last request's data or its answer, whichever came later: the
          // client's idle timer starts when it has the answer.
          if (answerPending(socket)) lastHeard.set(socket, now);
          else if (now - (lastHeard.get(socket) ?? now) >= QUIET_MS) socket.destroy();
        }
        await sleep(50);
      }
      await closed;
    },
  };
}

/** Whether the server owes an answer on this connection (Node keeps the pending response there). */
function answerPending(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
}

/** Stops accepting, leaving open connections alone (http.Server#close would close the idle ones). */
function closeListener(server: Server): Promise<void> {
  return new Promise((resolve) => {
    NetServer.prototype.close.call(server, () => resolve());
  });
}
