import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A client application's redirect endpoint, for real: records every URL the browser is sent to. */
export interface CallbackServer {
  redirectUri: string;
  received: URL[];
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URL[] = [];
  const server = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://localhost'));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('callback reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://localhost:${port}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
