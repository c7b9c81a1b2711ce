import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useStack } from './support/use-stack';

const world = useStack();

/** Sends the head of a request and part of its body, then closes the connection. */
async function hangUp(path: string, token: string, bodyBytes: number, closeAfterMs: number): Promise<void> {
  const { port } = new URL(world.stack.apiUrl);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n' +
      '{"name":"half'.slice(0, bodyBytes),
  );
  await new Promise((resolve) => setTimeout(resolve, closeAfterMs));
  socket.destroy();
}

async function serverErrors(): Promise<number> {
  const metrics = await (await fetch(`${world.stack.apiUrl}/metrics`)).text();
  return metrics
    .split('\n')
    .filter((line) => line.startsWith('http_requests_total{') && /status="5\d\d"/.test(line))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('a client that hangs up mid-request', () => {
  it('is not counted as a server error and leaves no record behind', async () => {
    const before = await serverErrors();
    const hangUps = [];
    // Closed before the body is read (while the token is confirmed), and halfway through it.
    for (let index = 0; index < 20; index++) {
      hangUps.push(hangUp('/v4/contacts', world.client.token, index % 2 === 0 ? 0 : 8, index % 3));
      hangUps.push(hangUp('/v3/contacts', world.client.token, index % 2 === 0 ? 0 : 8, index % 3));
    }
    await Promise.all(hangUps);
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(await serverErrors()).toBe(before);
    expect(
      await world.stack
        .db('contacts')
        .where({ owner_id: world.client.member.id })
        .count<[{ count: number }]>('* as count'),
    ).toEqual([{ count: 0 }]);
    // And the service still answers.
    expect((await world.client.json('/v4/contacts')).status).toBe(200);
  });
});

describe('a body whose chunked framing is broken', () => {
  it("is the client's mistake on every route that reads a body, vCard import included: never counted as a 5xx", async () => {
    const before = await serverErrors();
    const { port } = new URL(world.stack.apiUrl);
    for (const [path, type] of [
      ['/v4/contacts/import', 'text/vcard'],
      ['/v4/contacts', 'application/json'],
      ['/v4/contacts/batch', 'application/json'],
      ['/v3/contacts', 'application/json'],
    ]) {
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const answer = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1');
        });
        socket.on('close', () => resolve(text));
      });
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${world.client.token}\r\n` +
          `Content-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nBEGIN\r\nGARBAGE\r\n`,
      );
      expect(await answer, path).toMatch(/^HTTP\/1\.1 400 /);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await serverErrors()).toBe(before);
  });
});
