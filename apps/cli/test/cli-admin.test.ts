import { spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
import { addMemberToGroup, authenticateMember, signInGuard } from '@contacts/auth';
import { insertMemberSession, TOKEN_REVOCATION_CHANNEL } from '@contacts/db';
import { createEmptyTestDatabase, createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, soloCommands } from '../src/commands/index';
import { aCategory, aClient, aGroup, aMember } from './factories';
import { appRoot, runCli } from './support';

let database: TestDatabase;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, DATA_DIR: '/tmp/contacts-cli-test' };
});
afterAll(async () => database.drop());

interface Page {
  items: Array<Record<string, unknown>>;
  next_after: number | string | null;
  next_command: string | null;
}

/** Runs a printed next_command (`pnpm -s cli …`) the way an operator would paste it. */
const runPrinted = (command: string) => runCli(command.replace(/^pnpm -s cli /, '').split(' '), env);

/** The part of a node-postgres client used here (pg itself is not a dependency of this app). */
interface NotifyingConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { payload?: string }) => void): void;
  removeAllListeners(event: 'notification'): void;
}

/** Collects the revocation notices the contacts API listens to, until stopped. */
async function listenForRevocations(): Promise<{ stop(): Promise<unknown[]> }> {
  const connection = (await database.db.client.acquireConnection()) as NotifyingConnection;
  const notices: unknown[] = [];
  connection.on('notification', (message) => notices.push(JSON.parse(message.payload ?? 'null')));
  await connection.query(`listen "${TOKEN_REVOCATION_CHANNEL}"`);
  return {
    async stop() {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await connection.query('unlisten *');
      connection.removeAllListeners('notification');
      await database.db.client.releaseConnection(connection);
      return notices;
    },
  };
}

/** The member signed in on two browsers (a stolen cookie among them): the pages' sessions and the provider's. */
async function signedInOnTwoBrowsers(memberId: number): Promise<void> {
  for (const browser of ['laptop', 'stolen']) {
    await insertMemberSession(database.db, {
      id_hash: `${browser}-${memberId}`,
      member_id: memberId,
      expires_at: new Date(Date.now() + 86_400_000),
      user_agent: browser,
      ip: null,
    });
  }
  await database.db('oidc_models').insert({
    model: 'Session',
    id_hash: `session-${memberId}`,
    payload: { accountId: String(memberId) },
    account_id: String(memberId),
    expires_at: new Date(Date.now() + 86_400_000),
  });
}

/** How many sessions the member has on the pages and at the provider. */
const sessionsOf = async (memberId: number) => ({
  pages: (await database.db('member_sessions').where({ member_id: memberId }).pluck('id_hash')).length,
  provider: (
    await database
      .db('oidc_models')
      .where({ model: 'Session', account_id: String(memberId) })
      .pluck('id_hash')
  ).length,
});

const auditEvents = (memberId: number) =>
  database.db('audit_events').where({ member_id: memberId }).orderBy('id').pluck('event');

describe('the command line', () => {
  it('takes help as a value like any other: --name help names a group "help"; --help and -h ask for help', async () => {
    const named = await runCli(['group', 'create', '--name', 'help'], env);
    expect(named.code).toBe(0);
    expect(named.json).toMatchObject({ name: 'help' });
    for (const ask of ['--help', '-h']) {
      const help = await runCli(['group', 'create', '--name', 'x', ask], env);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('group create --name N');
    }
  });

  it('refuses a one-value flag given twice with exit code 2, doing nothing', async () => {
    const run = await runCli(['group', 'create', '--name', 'first', '--name', 'second'], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: --name given more than once/);
    expect(await database.db('groups').whereIn('name', ['first', 'second'])).toEqual([]);
  });

  it('exits 1 and says so when its result cannot be written (a full disk): a secret shown once is not silently lost', async () => {
    const member = await aMember(database.db);
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'token', 'create', '--member', String(member.id), '--name', 'lost'],
      { cwd: appRoot, env: { ...process.env, ...env }, stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'] },
    );
    expect(run.status).toBe(1);
    const [token] = await database
      .db('personal_access_tokens')
      .where({ member_id: member.id, name: 'lost' })
      .pluck('id');
    expect(run.stderr.toString()).toMatch(
      /could not be written to standard output \(ENOSPC\)\. The token it showed, id (\d+), is lost/,
    );
    expect(run.stderr.toString()).toContain(`pnpm -s cli token revoke --id ${token}`);
  });
});

describe('listings', () => {
  it('page through members with --limit and the printed next command, to the last page', async () => {
    const a = await aMember(database.db);
    const b = await aMember(database.db);
    const c = await aMember(database.db);
    const after = a.id - 1;
    const first = await runCli(['member', 'list', '--limit', '2', '--after', String(after)], env);
    expect(first.code).toBe(0);
    const page = first.json as Page;
    expect(page.items.map((item) => item.id)).toEqual([a.id, b.id]);
    expect(page.items[0]).toEqual({
      id: a.id,
      email: a.email,
      name: a.name,
      created_at: expect.any(String),
      disabled_at: null,
    });
    expect(page.next_after).toBe(b.id);
    expect(page.next_command).toBe(`pnpm -s cli member list --limit 2 --after=${b.id}`);
    const second = (await runPrinted(page.next_command ?? '')).json as Page;
    expect(second.items.map((item) => item.id)).toEqual([c.id]);
    expect(second).toMatchObject({ next_after: null, next_command: null });
  });

  it('list groups with member counts, categories, and one owner’s clients without secret hashes', async () => {
    const owner = await aMember(database.db);
    const group = await aGroup(database.db);
    await addMemberToGroup(database.db, { group: group.id, member: owner.id });
    const category = await aCategory(database.db);
    const client = await aClient(database.db, owner.id);

    const groups = (await runCli(['group', 'list', '--after', String(group.id - 1), '--limit', '1'], env)).json as Page;
    expect(groups.items).toEqual([{ id: group.id, name: group.name, member_count: 1 }]);
    const categories = (await runCli(['category', 'list', '--after', String(category.id - 1)], env)).json as Page;
    expect(categories).toEqual({ items: [category], next_after: null, next_command: null });
    const clients = (await runCli(['client', 'list', '--owner', String(owner.id)], env)).json as Page;
    expect(clients.items).toEqual([
      {
        client_id: client.client_id,
        owner_id: owner.id,
        name: expect.any(String),
        redirect_uris: ['http://localhost:4999/callback'],
        is_public: false,
        dpop_bound_access_tokens: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
  });

  it.each([
    ['a zero limit', ['member', 'list', '--limit', '0']],
    ['a limit above 1000', ['token', 'list', '--limit', '1001']],
    ['a non-numeric cursor', ['group', 'list', '--after', 'abc']],
    ['a non-numeric owner', ['client', 'list', '--owner', 'me']],
  ])('refuse %s with exit code 2', async (_why, args) => {
    const run = await runCli(args, env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: --(limit|after|owner) must/);
  });

  it.each([
    ['client list', ['client', 'list', '--owner', '999999999']],
    ['token list', ['token', 'list', '--member', '999999999']],
  ])('%s by a member id nobody has is a usage error (exit 2), not an empty page', async (_command, args) => {
    const run = await runCli(args, env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: no member has id 999999999/);
  });
});

describe('members', () => {
  it('show a member with groups, clients, tokens and authorized apps, never a hash', async () => {
    const member = await aMember(database.db);
    const group = await aGroup(database.db);
    await addMemberToGroup(database.db, { group: group.id, member: member.id });
    await aClient(database.db, member.id);
    await runCli(['token', 'create', '--member', String(member.id), '--name', 'Script'], env);
    const run = await runCli(['member', 'show', '--member', String(member.id)], env);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      id: member.id,
      email: member.email,
      disabled_at: null,
      groups: [{ id: group.id, name: group.name }],
      clients: [{ owner_id: member.id }],
      personal_tokens: [{ name: 'Script', revoked_at: null }],
      authorized_apps: [],
    });
    expect(run.stdout).not.toMatch(/hash|grant_id|password/);
  });

  it('show the API documentation among the authorized apps once the member approved it, as the settings page does', async () => {
    const member = await aMember(database.db);
    const iat = Math.floor(Date.now() / 1000);
    // A consent as oidc-provider stores it when the member approves the docs' Swagger UI.
    await database.db('oidc_models').insert({
      model: 'Grant',
      id_hash: `docs-grant-${member.id}`,
      payload: JSON.stringify({
        jti: `docs-grant-${member.id}`,
        iat,
        resources: { 'urn:contacts-api': 'contacts:read' },
      }),
      grant_id: `docs-grant-${member.id}`,
      account_id: String(member.id),
      client_id: 'contacts-api-docs',
      expires_at: new Date(Date.now() + 3_600_000),
    });
    const run = await runCli(['member', 'show', '--member', String(member.id)], env);
    expect((run.json as { authorized_apps: unknown[] }).authorized_apps).toEqual([
      {
        client_id: 'contacts-api-docs',
        client_name: 'API documentation (Swagger UI)',
        scope: 'contacts:read',
        granted_at: new Date(iat * 1000).toISOString(),
      },
    ]);
  });

  it('set a new password: the old one stops working, the new one signs in, every session is signed out, tokens stay, and the security log says so', async () => {
    const member = await aMember(database.db);
    const token = (await runCli(['token', 'create', '--member', String(member.id), '--name', 'Sync'], env)).json as {
      id: number;
    };
    await signedInOnTwoBrowsers(member.id);
    // With logging on, as docker-compose's migrate service runs the CLI: the audit line goes to
    // stderr, stdout stays the one JSON document.
    const run = await runCli(
      ['member', 'set-password', '--member', String(member.id), '--password', 'new password 1'],
      { ...env, LOG_LEVEL: 'info' },
    );
    expect(run.json).toEqual({ id: member.id, password_changed: true, ended_sessions: 2, tokens_revoked: false });
    expect(run.stderr).toContain('"audit":"password.changed"');
    expect(await authenticateMember(database.db, member.email, member.password)).toBeUndefined();
    expect(await authenticateMember(database.db, member.email, 'new password 1')).toMatchObject({ id: member.id });
    // A session opened with the old password does not outlive it, on the pages or at the provider.
    expect(await sessionsOf(member.id)).toEqual({ pages: 0, provider: 0 });
    // Without --revoke-tokens, what the member authorized keeps working.
    expect((await database.db('personal_access_tokens').where({ id: token.id }).first()).revoked_at).toBeNull();
    expect(await auditEvents(member.id)).toEqual(['personal_token.created', 'password.changed']);
  });

  it('lift a sign-in lock: member unlock keeps the password, member set-password gives a new one that works at once', async () => {
    const guard = signInGuard(database.db, 'a server secret of the tests, 32 characters or more');
    /** Five wrong passwords from one address: the account is locked there (the member's own typos, say). */
    const lockOut = async (email: string) => {
      for (let attempt = 0; attempt < 5; attempt++)
        expect(await guard.beginAttempt(email, '203.0.113.5')).toBeUndefined();
      expect(await guard.beginAttempt(email, '203.0.113.5')).toBeGreaterThan(0);
    };
    const member = await aMember(database.db);
    await lockOut(member.email);
    const unlocked = await runCli(['member', 'unlock', '--member', String(member.id)], env);
    expect(unlocked.json).toEqual({ id: member.id, unlocked: true });
    expect(await guard.beginAttempt(member.email, '203.0.113.5')).toBeUndefined();
    expect(await authenticateMember(database.db, member.email, member.password)).toMatchObject({ id: member.id });

    const other = await aMember(database.db);
    await lockOut(other.email);
    await runCli(['member', 'set-password', '--member', String(other.id), '--password', 'new password 3'], env);
    expect(await guard.beginAttempt(other.email, '203.0.113.5')).toBeUndefined();

    // A disabled member's reset lifts it too: enabled again, they can sign in at once.
    const disabled = await aMember(database.db);
    await lockOut(disabled.email);
    await runCli(['member', 'disable', '--member', String(disabled.id)], env);
    await runCli(['member', 'set-password', '--member', String(disabled.id), '--password', 'new password 4'], env);
    await runCli(['member', 'enable', '--member', String(disabled.id)], env);
    expect(await guard.beginAttempt(disabled.email, '203.0.113.5')).toBeUndefined();
  });

  it('set a new password with --revoke-tokens: every token and consent revoked too, and the contacts API told', async () => {
    const member = await aMember(database.db);
    const token = (await runCli(['token', 'create', '--member', String(member.id), '--name', 'Sync'], env)).json as {
      id: number;
    };
    const announced = await listenForRevocations();
    const run = await runCli(
      ['member', 'set-password', '--member', String(member.id), '--password', 'new password 2', '--revoke-tokens'],
      env,
    );
    expect(run.json).toEqual({ id: member.id, password_changed: true, ended_sessions: 0, tokens_revoked: true });
    expect((await database.db('personal_access_tokens').where({ id: token.id }).first()).revoked_at).not.toBeNull();
    expect(await database.db('oidc_models').where({ account_id: String(member.id) })).toEqual([]);
    expect(await announced.stop()).toEqual([{ token_hashes: [expect.any(String)] }]);
  });

  it('take the password from standard input with --password-stdin, out of the process list; refuse both or neither flag', async () => {
    const member = await aMember(database.db);
    const args = ['member', 'set-password', '--member', String(member.id)];
    const run = await runCli([...args, '--password-stdin'], env, undefined, 'typed on stdin 1\r\nsecond line\n');
    expect(run.json).toMatchObject({ id: member.id, password_changed: true });
    expect(await authenticateMember(database.db, member.email, 'typed on stdin 1')).toMatchObject({ id: member.id });

    const both = await runCli([...args, '--password-stdin', '--password', 'new password 5'], env);
    expect(both).toMatchObject({ code: 2, stdout: '' });
    expect(both.stderr).toContain('give only one of --password or --password-stdin');
    const neither = await runCli(args, env);
    expect(neither).toMatchObject({ code: 2, stdout: '' });
    expect(neither.stderr).toContain('missing --password or --password-stdin');
    const nothingTyped = await runCli([...args, '--password-stdin'], env, undefined, '');
    expect(nothingTyped).toMatchObject({ code: 2, stdout: '' });
    expect(nothingTyped.stderr).toContain('standard input ended before a password');
    expect(await authenticateMember(database.db, member.email, 'typed on stdin 1')).toMatchObject({ id: member.id });

    const created = await runCli(
      ['member', 'create', '--email', `stdin-${member.id}@example.com`, '--name', 'Stdin', '--password-stdin'],
      env,
      undefined,
      'created from stdin\n',
    );
    expect(created.code).toBe(0);
    expect(await authenticateMember(database.db, `stdin-${member.id}@example.com`, 'created from stdin')).toBeDefined();
  });

  it('refuse a short password and an unknown member with exit code 2, changing nothing', async () => {
    const member = await aMember(database.db);
    const short = await runCli(['member', 'set-password', '--member', String(member.id), '--password', 'short'], env);
    expect(short.code).toBe(2);
    expect(await authenticateMember(database.db, member.email, member.password)).toMatchObject({ id: member.id });
    const unknown = await runCli(['member', 'show', '--member', '2147483000'], env);
    expect(unknown).toMatchObject({ code: 2, stdout: '', stderr: 'error: no member has id 2147483000\n' });
  });

  it('disable a member: no sign-in, every token, consent and session revoked and announced; enable lets them sign in again', async () => {
    const member = await aMember(database.db);
    const token = (await runCli(['token', 'create', '--member', String(member.id), '--name', 'Sync'], env)).json as {
      id: number;
    };
    await signedInOnTwoBrowsers(member.id);
    // The personal token's grant and the token itself.
    expect(
      (
        await database
          .db('oidc_models')
          .where({ account_id: String(member.id) })
          .pluck('model')
      ).sort(),
    ).toEqual(['AccessToken', 'Grant', 'Session']);
    const announced = await listenForRevocations();

    const run = await runCli(['member', 'disable', '--member', String(member.id)], env);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      id: member.id,
      disabled_at: expect.any(String),
      revoked_grants: 1,
      revoked_personal_tokens: 1,
      ended_sessions: 2,
    });
    // Disabled again: the moment access ended stays the first one.
    const again = await runCli(['member', 'disable', '--member', String(member.id)], env);
    expect((again.json as { disabled_at: string }).disabled_at).toBe((run.json as { disabled_at: string }).disabled_at);
    // Nothing `member enable` could bring back: a stolen session would have been valid again.
    expect(await database.db('member_sessions').where({ member_id: member.id })).toEqual([]);
    expect(await authenticateMember(database.db, member.email, member.password)).toBeUndefined();
    expect(await database.db('oidc_models').where({ account_id: String(member.id) })).toEqual([]);
    expect((await database.db('personal_access_tokens').where({ id: token.id }).first()).revoked_at).not.toBeNull();
    // The contacts API is told about the revoked access token (its cached introspection ends).
    expect(await announced.stop()).toEqual([{ token_hashes: [expect.any(String)] }]);

    const enabled = await runCli(['member', 'enable', '--member', String(member.id)], env);
    expect(enabled.json).toMatchObject({ id: member.id, disabled_at: null });
    expect(await authenticateMember(database.db, member.email, member.password)).toMatchObject({ id: member.id });
    expect(await auditEvents(member.id)).toEqual(expect.arrayContaining(['account.disabled', 'account.enabled']));
  });
});

describe('a disabled member', () => {
  it('is given no new token or application, and the refusal says why (exit code 2)', async () => {
    const member = await aMember(database.db);
    await runCli(['member', 'disable', '--member', String(member.id)], env);
    const refusal = `error: member ${member.id} is disabled (\`member enable --member ${member.id}\` undoes that)\n`;

    const token = await runCli(['token', 'create', '--member', String(member.id), '--name', 'CI'], env);
    expect(token).toMatchObject({ code: 2, stdout: '', stderr: refusal });
    const client = await runCli(
      ['client', 'create', '--owner', String(member.id), '--name', 'App', '--redirect-uri', 'https://app.example/cb'],
      env,
    );
    expect(client).toMatchObject({ code: 2, stdout: '', stderr: refusal });
    expect(await database.db('personal_access_tokens').where({ member_id: member.id })).toEqual([]);
    expect(await database.db('oauth_clients').where({ owner_id: member.id })).toEqual([]);
  });
});

describe('tokens', () => {
  it('revoke a personal access token as the settings do: grant gone, row marked, security log entry', async () => {
    const member = await aMember(database.db);
    const created = (await runCli(['token', 'create', '--member', String(member.id), '--name', 'CI'], env)).json as {
      id: number;
    };
    const listed = (await runCli(['token', 'list', '--member', String(member.id)], env)).json as Page;
    expect(listed.items).toEqual([
      expect.objectContaining({ id: created.id, member_id: member.id, name: 'CI', scopes: ['*'], revoked_at: null }),
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/token_hash|grant_id/);

    const run = await runCli(['token', 'revoke', '--id', String(created.id)], env);
    expect(run.json).toEqual({ id: created.id, revoked: true, already_revoked: false });
    expect(await database.db('oidc_models').where({ account_id: String(member.id) })).toEqual([]);
    // Created by the administrator or by the member, a token is in their security log.
    expect(await auditEvents(member.id)).toEqual(['personal_token.created', 'personal_token.revoked']);
    const again = await runCli(['token', 'revoke', '--id', String(created.id)], env);
    expect(again.json).toEqual({ id: created.id, revoked: true, already_revoked: true });
    // Several scopes, as repeated flags: all of them (the last one alone made a write-only token).
    const both = (
      await runCli(
        [
          'token',
          'create',
          '--member',
          String(member.id),
          '--name',
          'Both',
          '--scope',
          'contacts:read',
          '--scope',
          'contacts:write',
        ],
        env,
      )
    ).json as { id: number };
    expect(await database.db('personal_access_tokens').where({ id: both.id }).first()).toMatchObject({
      scopes: ['contacts:read', 'contacts:write'],
    });
  });

  it('refuse an unknown token with exit code 2', async () => {
    const run = await runCli(['token', 'revoke', '--id', '2147483000'], env);
    expect(run).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('clients', () => {
  it('show, rotate the secret of, and delete a client, each logged for its owner', async () => {
    const owner = await aMember(database.db);
    const client = await aClient(database.db, owner.id);
    const shown = await runCli(['client', 'show', '--client', client.client_id], env);
    expect(shown.json).toMatchObject({ client_id: client.client_id, owner_id: owner.id, is_public: false });
    expect(shown.stdout).not.toContain('secret');

    const before = (await database.db('oauth_clients').where({ client_id: client.client_id }).first()).secret_hash;
    const rotated = await runCli(['client', 'rotate-secret', '--client', client.client_id], env);
    expect(rotated.json).toEqual({
      client_id: client.client_id,
      client_secret: expect.any(String),
      redirect_uris: ['http://localhost:4999/callback'],
    });
    expect((rotated.json as { client_secret: string }).client_secret).not.toBe(client.client_secret);
    const after = (await database.db('oauth_clients').where({ client_id: client.client_id }).first()).secret_hash;
    expect(after).not.toBe(before);

    const deleted = await runCli(['client', 'delete', '--client', client.client_id], env);
    expect(deleted.json).toEqual({ client_id: client.client_id, deleted: true });
    expect(await database.db('oauth_clients').where({ client_id: client.client_id })).toEqual([]);
    expect(await auditEvents(owner.id)).toEqual(['application.secret_rotated', 'application.deleted']);
  });

  it('take a client id that begins with a dash as --client=ID, and page to it with the printed command', async () => {
    const owner = await aMember(database.db);
    const first = await aClient(database.db, owner.id);
    const legacyId = `-${first.client_id.slice(1)}`; // ids made before 2026-11-24 could begin with "-"
    await database.db('oauth_clients').where({ client_id: first.client_id }).update({ client_id: legacyId });
    await aClient(database.db, owner.id);

    const ambiguous = await runCli(['client', 'show', '--client', legacyId], env);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("use '--client=-XYZ'");
    expect((await runCli(['client', 'show', `--client=${legacyId}`], env)).json).toMatchObject({ client_id: legacyId });

    const page = (await runCli(['client', 'list', '--owner', String(owner.id), '--limit', '1'], env)).json as Page;
    expect(page.next_command).toBe(`pnpm -s cli client list --owner=${owner.id} --limit 1 --after=${legacyId}`);
  });

  it('update a client’s name and redirect URIs, keeping its secret, and refuse a bad URI (exit code 2)', async () => {
    const owner = await aMember(database.db);
    const client = await aClient(database.db, owner.id);
    const stored = () => database.db('oauth_clients').where({ client_id: client.client_id }).first();
    const secretBefore = (await stored()).secret_hash;
    const renamed = await runCli(['client', 'update', '--client', client.client_id, '--name', 'Renamed'], env);
    expect(renamed.json).toMatchObject({
      client_id: client.client_id,
      name: 'Renamed',
      redirect_uris: client.redirect_uris,
    });
    const moved = await runCli(
      [
        'client',
        'update',
        '--client',
        client.client_id,
        '--redirect-uri',
        'https://a.example/cb',
        '--redirect-uri',
        'https://b.example/cb',
      ],
      env,
    );
    expect(moved.json).toMatchObject({
      name: 'Renamed',
      redirect_uris: ['https://a.example/cb', 'https://b.example/cb'],
    });
    expect((await stored()).secret_hash).toBe(secretBefore);

    const refused = await runCli(
      ['client', 'update', '--client', client.client_id, '--redirect-uri', 'http://a.example/cb'],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('must use https');
    expect((await runCli(['client', 'update', '--client', client.client_id], env)).code).toBe(2);
    expect((await stored()).redirect_uris).toEqual(['https://a.example/cb', 'https://b.example/cb']);
    expect(await auditEvents(owner.id)).toEqual(['application.updated', 'application.updated']);
  });

  it('refuse to rotate a public client’s secret and to delete an unknown client (exit code 2)', async () => {
    const owner = await aMember(database.db);
    const client = await aClient(database.db, owner.id, { public: true });
    expect((await runCli(['client', 'rotate-secret', '--client', client.client_id], env)).code).toBe(2);
    expect((await runCli(['client', 'delete', '--client', 'no-such-client'], env)).code).toBe(2);
    expect(await auditEvents(owner.id)).toEqual([]);
  });
});

describe('groups', () => {
  it('remove a member from a group, and refuse to remove one who is not in it', async () => {
    const member = await aMember(database.db);
    const group = await aGroup(database.db);
    await addMemberToGroup(database.db, { group: group.id, member: member.id });
    const args = ['group', 'remove-member', '--group', String(group.id), '--member', String(member.id)];
    expect((await runCli(args, env)).json).toEqual({ group_id: group.id, member_id: member.id, removed: true });
    expect(await database.db('group_members').where({ group_id: group.id })).toEqual([]);
    const again = await runCli(args, env);
    expect(again).toMatchObject({ code: 2, stderr: `error: member ${member.id} is not in group ${group.id}\n` });
  });
});

describe('a group and a disabled member', () => {
  it('refuses to add a disabled member, saying so, and still removes one', async () => {
    const member = await aMember(database.db);
    const group = await aGroup(database.db);
    await addMemberToGroup(database.db, { group: group.id, member: member.id });
    expect((await runCli(['member', 'disable', '--member', String(member.id)], env)).code).toBe(0);
    const inGroup = ['--group', String(group.id), '--member', String(member.id)];
    const added = await runCli(['group', 'add-member', ...inGroup], env);
    expect(added).toMatchObject({ code: 2, stdout: '' });
    expect(added.stderr).toMatch(new RegExp(`^error: member ${member.id} is disabled`));
    expect((await runCli(['group', 'remove-member', ...inGroup], env)).json).toMatchObject({ removed: true });
  });
});

describe('a member named by e-mail address', () => {
  it('is found as at sign-in (any case, either Unicode form) by every command that takes a member', async () => {
    const suffix = Date.now().toString(36);
    const composed = `jos\u00e9.${suffix}@example.test`;
    const created = await runCli(
      ['member', 'create', '--email', composed, '--name', 'José', '--password', 'a long password'],
      env,
    );
    const id = (created.json as { id: number }).id;
    const typed = `JOSE\u0301.${suffix.toUpperCase()}@EXAMPLE.TEST`;
    expect((await runCli(['member', 'show', '--member', typed], env)).json).toMatchObject({ id, email: composed });
    const token = (await runCli(['token', 'create', '--member', typed, '--name', 'Sync'], env)).json as { id: number };
    const tokens = (await runCli(['token', 'list', '--member', composed], env)).json as Page;
    expect(tokens.items.map((item) => [item.id, item.member_id])).toEqual([[token.id, id]]);
    const client = (
      await runCli(
        ['client', 'create', '--owner', typed, '--name', 'Hers', '--redirect-uri', 'https://a.example/cb'],
        env,
      )
    ).json as { client_id: string };
    const clients = (await runCli(['client', 'list', '--owner', composed], env)).json as Page;
    expect(clients.items.map((item) => [item.client_id, item.owner_id])).toEqual([[client.client_id, id]]);
    const group = await aGroup(database.db);
    const inGroup = ['--group', String(group.id), '--member', typed];
    expect((await runCli(['group', 'add-member', ...inGroup], env)).json).toEqual({
      group_id: group.id,
      member_id: id,
    });
    expect((await runCli(['group', 'remove-member', ...inGroup], env)).json).toMatchObject({
      member_id: id,
      removed: true,
    });
  });

  it('refuses an address nobody has, and a value that is neither id nor address, with exit code 2', async () => {
    const nobody = await runCli(['member', 'unlock', '--member', 'nobody@example.test'], env);
    expect(nobody).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: no member has the e-mail address "nobody@example.test"\n',
    });
    const neither = await runCli(['member', 'show', '--member', 'jose'], env);
    expect(neither).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: --member must be a member's id or e-mail address, not "jose"\n`,
    });
  });
});

describe('help and an unmigrated database', () => {
  it('prints help for the tool and for every command, exit code 0', async () => {
    const tool = await runCli(['--help'], env);
    expect(tool.code).toBe(0);
    const nothing = await runCli([], env);
    expect(nothing).toMatchObject({ code: 2, stdout: '' });
    expect(nothing.stderr).toContain(commands.member?.list?.summary);
    const every = [...Object.values(commands).flatMap((verbs) => Object.values(verbs)), ...Object.values(soloCommands)];
    for (const command of every) expect(tool.stdout).toContain(command.summary);
    const one = await runCli(['client', 'rotate-secret', '--help'], env);
    expect(one.stdout).toBe(
      `usage: pnpm -s cli ${commands.client?.['rotate-secret']?.summary}\n\n${commands.client?.['rotate-secret']?.description}\n`,
    );
    expect((await runCli(['token', '--help'], env)).stdout).toContain('token revoke --id T');
  });

  it('says the database is not migrated and how to migrate it: one paragraph, exit code 1, no stack trace; migrate status lists what migrate latest then applies', async () => {
    const empty = await createEmptyTestDatabase();
    try {
      const run = await runCli(['member', 'list'], { DATABASE_URL: empty.url });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'error: the database in DATABASE_URL has not been migrated: it has none of the tables this command needs. ' +
          'Run `pnpm -s cli migrate latest` with the same DATABASE_URL to bring it up to date (it is safe to run ' +
          'while the services run), then run this command again.\n',
      );
      const before = await runCli(['migrate', 'status'], { DATABASE_URL: empty.url });
      expect(before.json).toMatchObject({ current: false, newer: [] });
      const pending = (before.json as { pending: string[] }).pending;
      expect(pending.length).toBeGreaterThan(0);
      const migrated = await runCli(['migrate', 'latest'], { DATABASE_URL: empty.url });
      expect(migrated.json).toEqual({ applied: pending, newer: [] });
      expect((await runCli(['migrate', 'status'], { DATABASE_URL: empty.url })).json).toEqual({
        current: true,
        pending: [],
        newer: [],
      });
      expect((await runCli(['member', 'list'], { DATABASE_URL: empty.url })).json).toEqual({
        items: [],
        next_after: null,
        next_command: null,
      });
    } finally {
      await empty.drop();
    }
  });
});
