import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database, listenForNotifications } from '../src/index';

/**
 * A server that takes connections and never answers: a PostgreSQL still starting, or one going
 * away, as the listener's connection attempt meets it. Dropping its sockets is the database leaving.
 */
async function silentServer(): Promise<{ server: Server; sockets: Socket[]; url: string }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, sockets, url: `postgres://postgres@127.0.0.1:${port}/contacts` };
}

describe('the LISTEN connection', () => {
  let db: Database | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await db?.destroy();
    server?.close();
  });

  async function listenerConnecting() {
    const silent = await silentServer();
    server = silent.server;
    db = createDatabase(silent.url, { poolMax: 1 });
    const onStateChange = vi.fn();
    const listener = listenForNotifications(db, {
      channel: 'test_channel',
      onNotification: () => {},
      onStateChange,
      retryDelay: 20,
    });
    await vi.waitFor(() => expect(silent.sockets).toHaveLength(1));
    return { listener, onStateChange, sockets: silent.sockets };
  }

  it('reports a connection attempt the database cuts off, and tries again', async () => {
    const { listener, onStateChange, sockets } = await listenerConnecting();
    for (const socket of sockets) socket.destroy();
    await vi.waitFor(() => expect(onStateChange).toHaveBeenCalledWith(false, expect.any(Error)));
    await vi.waitFor(() => expect(sockets.length).toBeGreaterThan(1));
    await listener.close();
  });

  it('says nothing and does not reconnect when the attempt is cut off after close (a shutdown, not an outage)', async () => {
    const { listener, onStateChange, sockets } = await listenerConnecting();
    await listener.close();
    for (const socket of sockets) socket.destroy();
    await sleep(200);
    expect(onStateChange).not.toHaveBeenCalled();
    expect(sockets).toHaveLength(1);
  });
});
