import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  AuthServerUnavailable,
  IntrospectionCredentialsRefused,
  introspectionClient,
  introspectionCredentialsCheck,
} from '../src/auth/introspection';
import { type StackOptions, startStack } from './support/servers';
import { useStack } from './support/use-stack';

const world = useStack({ client: false });

describe('contacts-api health endpoints', () => {
  it('names the URL and the reason when the authorization server cannot be reached', async () => {
    // A port nothing listens on: taken, then let go.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const introspect = introspectionClient({
      authInternalUrl: `http://127.0.0.1:${port}`,
      clientId: 'c',
      clientSecret: 's',
    });
    const failure = await introspect('a-token').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthServerUnavailable);
    expect((failure as Error).message).toMatch(
      new RegExp(`^introspection request to http://127\\.0\\.0\\.1:${port}/oauth/introspect failed: .*ECONNREFUSED`),
    );
  });

  it('says it is alive, and ready when the schema is current and the auth server answers', async () => {
    expect(await (await fetch(`${world.stack.apiUrl}/healthz`)).json()).toEqual({
      status: 'ok',
      service: 'contacts-api',
    });
    const ready = await fetch(`${world.stack.apiUrl}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('answers HEAD on /healthz, /readyz and /metrics as GET, without a body (probes that use HEAD)', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const head = await fetch(`${world.stack.apiUrl}${path}`, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(await head.text(), path).toBe('');
    }
  });

  it('is not ready when AUTH_INTERNAL_URL reaches something other than the authorization server (itself here)', async () => {
    const { status, problems, apiUrl } = await readinessOfStack({ authInternalUrlIsTheApi: true });
    expect(status).toBe(503);
    expect(problems.authorization_server).toBe(
      `AUTH_INTERNAL_URL (${apiUrl}) reaches the contacts-api service, not the authorization server`,
    );
  });

  it('is not ready when the auth server refuses its introspection credentials, and says which ones', async () => {
    const { status, problems } = await readinessOfStack({ wrongIntrospectionSecret: true });
    expect(status).toBe(503);
    expect(problems.authorization_server).toMatch(/refuses the introspection credentials.*INTROSPECTION_CLIENT_SECRET/);
  });

  it('asks the auth server about its credentials at most once per interval while the verdict stands', async () => {
    let asked = 0;
    let clock = 0;
    let refuse = false;
    const check = introspectionCredentialsCheck(
      async () => {
        asked += 1;
        if (refuse) throw new IntrospectionCredentialsRefused('refused');
        return { active: false };
      },
      30_000,
      () => clock,
    );
    expect(await check()).toBeUndefined();
    clock += 29_999;
    refuse = true;
    expect(await check()).toBeUndefined();
    expect(asked).toBe(1);
    clock += 1;
    expect(await check()).toBe('refused');
    expect(asked).toBe(2);
  });

  it('is not ready when a migration is missing', async () => {
    await world.stack.db('knex_migrations').delete();
    const ready = await fetch(`${world.stack.apiUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ problems: { database: expect.stringContaining('migrations pending') } });
  });
});

/** The readiness of a stack started with `options` (an operator's mistake), stopped again. */
async function readinessOfStack(options: StackOptions) {
  const stack = await startStack(options);
  try {
    const ready = await fetch(`${stack.apiUrl}/readyz`);
    const body = (await ready.json()) as { problems?: Record<string, string> };
    return { status: ready.status, problems: body.problems ?? {}, apiUrl: stack.apiUrl };
  } finally {
    await stack.close();
  }
}
