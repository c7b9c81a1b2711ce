import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A client application's redirect endpoint, for real: records every URL the browser is sent to,
 * and the parameters of every form posted to it (response_mode=form_post).
 */
export interface CallbackServer {
  redirectUri: string;
  received: URL[];
  posted: URLSearchParams[];
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URL[] = [];
  const posted: URLSearchParams[] = [];
  const server = createServer(async (req, res) => {
    received.push(new URL(req.url ?? '/', 'http://localhost'));
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      posted.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('callback reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://localhost:${port}/callback`,
    received,
    posted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
