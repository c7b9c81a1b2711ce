import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QUIET_MS } from '../src/connection-drain';

const probe = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/serve-probe.ts');

/** serve() in a process of its own (it exits on the signal), and the port it listens on. */
async function startProbe(env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', probe], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout.once('data', (data) => resolve(Number(String(data)))),
  );
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, port, exit };
}

function get(port: number, agent: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', agent, path: '/' }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
    })
      .on('error', reject)
      .end();
  });
}

describe('a service stopping (SIGTERM)', () => {
  it('stops accepting, keeps answering on the connections it has, each answer closing its connection, then exits 0', async () => {
    const { child, port, exit } = await startProbe();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(port, agent)).toEqual({ status: 200, connection: 'keep-alive' });
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS / 4));
    // A proxy sending on its pooled connection now is answered, not cut off, and told to let go.
    expect(await get(port, agent)).toEqual({ status: 200, connection: 'close' });
    // A new connection is refused (a proxy sends the request elsewhere).
    await expect(get(port, new Agent())).rejects.toThrow(/ECONNREFUSED/);
    expect(await exit).toBe(0);
    agent.destroy();
  });

  it('lets a request in flight finish, and exits once it has', async () => {
    const { child, port, exit } = await startProbe({ DELAY_MS: '1500' });
    const agent = new Agent({ keepAlive: true });
    const slow = get(port, agent);
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGTERM');
    expect(await slow).toEqual({ status: 200, connection: 'close' });
    expect(await exit).toBe(0);
    agent.destroy();
  });

  it('exits at once when no connection is open', async () => {
    const { child, exit } = await startProbe();
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(Date.now() - started).toBeLessThan(QUIET_MS);
  });
});
