import { createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support';

let database: TestDatabase;
let env: NodeJS.ProcessEnv;
let memberId: number;
beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, DATA_DIR: '/tmp/contacts-cli-test' };
  const member = await runCli(
    ['member', 'create', '--email', 'dev@example.test', '--name', 'Dev', '--password', 'long enough password'],
    env,
  );
  memberId = (member.json as { id: number }).id;
});
afterAll(async () => database.drop());

describe('pnpm cli client and token commands', () => {
  it('registers a confidential client; only a hash of its secret is stored', async () => {
    const run = await runCli(
      [
        'client',
        'create',
        '--owner',
        String(memberId),
        '--name',
        'Sync',
        '--redirect-uri',
        'https://sync.example/cb',
        '--redirect-uri',
        'http://localhost:8080/cb',
      ],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.json).toEqual({
      client_id: expect.any(String),
      client_secret: expect.any(String),
      redirect_uris: ['https://sync.example/cb', 'http://localhost:8080/cb'],
    });
    const { client_id, client_secret } = run.json as { client_id: string; client_secret: string };
    const row = await database.db('oauth_clients').where({ client_id }).first();
    expect(row.secret_hash).toMatch(/^sha256\$/);
    expect(row.secret_hash).not.toContain(client_secret);
  });

  it('registers a public client without a secret', async () => {
    const run = await runCli(
      [
        'client',
        'create',
        '--owner',
        String(memberId),
        '--name',
        'Phone',
        '--redirect-uri',
        'http://127.0.0.1:9000/cb',
        '--public',
      ],
      env,
    );
    expect(run.json).toEqual({ client_id: expect.any(String), redirect_uris: ['http://127.0.0.1:9000/cb'] });
  });

  it('registers a client that must use DPoP (--dpop)', async () => {
    const run = await runCli(
      [
        'client',
        'create',
        '--owner',
        String(memberId),
        '--name',
        'Bound',
        '--redirect-uri',
        'https://b.example/cb',
        '--dpop',
      ],
      env,
    );
    expect(run.code).toBe(0);
    const { client_id } = run.json as { client_id: string };
    const row = await database.db('oauth_clients').where({ client_id }).first();
    expect(row.dpop_bound_access_tokens).toBe(true);
  });

  it.each([
    { why: 'an http redirect URI that is not local', args: ['--redirect-uri', 'http://example.com/cb'] },
    { why: 'a relative redirect URI', args: ['--redirect-uri', '/cb'] },
    { why: 'a redirect URI with a fragment', args: ['--redirect-uri', 'https://x.example/cb#frag'] },
  ])('refuses $why and writes nothing', async ({ args }) => {
    const before = await database.db('oauth_clients').count<{ count: number }[]>('* as count');
    const run = await runCli(['client', 'create', '--owner', String(memberId), '--name', 'Bad', ...args], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(await database.db('oauth_clients').count('* as count')).toEqual(before);
  });

  it('refuses a redirect URI not written as applications send it, at create and update, naming the form to use', async () => {
    const advice =
      'is not written as applications send it, and redirect URIs are matched character for character: register "https://sync.example/CB" instead.';
    const create = await runCli(
      ['client', 'create', '--owner', String(memberId), '--name', 'Upper', '--redirect-uri', 'HTTPS://SYNC.EXAMPLE/CB'],
      env,
    );
    expect(create.code).toBe(2);
    expect(create.stderr).toContain(`"HTTPS://SYNC.EXAMPLE/CB" ${advice}`);
    const created = await runCli(
      ['client', 'create', '--owner', String(memberId), '--name', 'Upper', '--redirect-uri', 'https://sync.example/CB'],
      env,
    );
    expect(created.code).toBe(0);
    const { client_id } = created.json as { client_id: string };
    const update = await runCli(
      ['client', 'update', '--client', client_id, '--redirect-uri', 'https://sync.example:443/CB'],
      env,
    );
    expect(update.code).toBe(2);
    expect(update.stderr).toContain(`"https://sync.example:443/CB" ${advice}`);
  });

  it('creates a personal access token for at most 60 days', async () => {
    const run = await runCli(
      ['token', 'create', '--member', String(memberId), '--name', 'backup', '--days', '7', '--scope', 'contacts:read'],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ id: expect.any(Number), token: expect.any(String), expires_at: expect.any(String) });
    const { expires_at } = run.json as { expires_at: string };
    const days = (new Date(expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    // Stored as every issued scope string is: without a scope another already includes.
    const wide = await runCli(
      ['token', 'create', '--member', String(memberId), '--name', 'wide', '--scope', '* contacts:read'],
      env,
    );
    const stored = await database
      .db('personal_access_tokens')
      .where({ id: (wide.json as { id: number }).id })
      .first();
    expect(stored.scopes).toEqual(['*']);

    const tooLong = await runCli(['token', 'create', '--member', String(memberId), '--name', 'x', '--days', '61'], env);
    expect(tooLong.code).toBe(2);
    const unknownScope = await runCli(
      ['token', 'create', '--member', String(memberId), '--name', 'x', '--scope', 'admin'],
      env,
    );
    expect(unknownScope.code).toBe(2);
    const unknownMember = await runCli(['token', 'create', '--member', '999999', '--name', 'x'], env);
    expect(unknownMember.code).toBe(2);
    expect(await database.db('personal_access_tokens').where({ name: 'x' })).toEqual([]);
  });

  it('sets up a demo member, group, categories and application', async () => {
    const run = await runCli(['demo'], env);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      member: { id: expect.any(Number), email: expect.stringContaining('@'), password: expect.any(String) },
      group: { id: expect.any(Number) },
      client: { client_id: expect.any(String), client_secret: expect.any(String) },
      authorize_url: expect.stringContaining('/oauth/authorize?client_id='),
      next_step: expect.stringContaining('address bar'),
    });
    // Nothing runs for this DATA_DIR: the first step is to start it.
    expect((run.json as { next_step: string }).next_step).toMatch(
      /^No pnpm start is running for this DATA_DIR: unless the product runs elsewhere, start it with `pnpm start` in another terminal, so that http:\/\/localhost:3000 answers\. Then open authorize_url/,
    );
    const { client, token_request } = run.json as { client: { client_id: string }; token_request: string };
    expect(token_request).toMatch(/^curl -s http:\/\/\S+\/oauth\/token -d grant_type=authorization_code -d code=CODE /);
    expect(token_request).toContain(`-d client_id=${client.client_id}`);
  });

  it('sets up a demo for a product on a high PORT too, its redirect URI on a port that exists', async () => {
    const members = async () => Number((await database.db('members').count({ n: '*' }).first())?.n);
    const before = await members();
    const run = await runCli(['demo'], { ...env, PORT: '65000' });
    expect(run.code).toBe(0);
    expect((run.json as { client: { redirect_uris: string[] } }).client.redirect_uris).toEqual([
      'http://localhost:64000/callback',
    ]);
    expect(await members()).toBe(before + 1);
  });
});
