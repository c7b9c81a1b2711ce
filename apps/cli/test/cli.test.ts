import { describe, expect, it } from 'vitest';
import { runCli, useCliDatabase } from './support';

const cli = useCliDatabase();

describe('pnpm cli', () => {
  it('creates a member and prints exactly its id, e-mail and name', async () => {
    const run = await runCli(
      ['member', 'create', '--email', 'grace@example.test', '--name', 'Grace', '--password', 'correct horse'],
      cli.env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.json).toEqual({ id: expect.any(Number), email: 'grace@example.test', name: 'Grace' });
    const stored = await cli.database.db('members').where({ email: 'grace@example.test' }).first();
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    expect(stored.password_hash).not.toContain('correct horse');
  });

  it('creates groups and categories, and adds members to groups', async () => {
    const member = (
      await runCli(
        ['member', 'create', '--email', 'alan@example.test', '--name', 'Alan', '--password', 'long enough password'],
        cli.env,
      )
    ).json as { id: number };
    const group = await runCli(['group', 'create', '--name', 'Chess club'], cli.env);
    expect(group.json).toEqual({ id: expect.any(Number), name: 'Chess club' });
    const groupId = (group.json as { id: number }).id;
    const membership = await runCli(
      ['group', 'add-member', '--group', String(groupId), '--member', String(member.id)],
      cli.env,
    );
    expect(membership.json).toEqual({ group_id: groupId, member_id: member.id });
    const category = await runCli(['category', 'create', '--name', 'Bakery'], cli.env);
    expect(category.json).toEqual({ id: expect.any(Number), name: 'Bakery' });
  });

  it.each([
    {
      why: 'an invalid e-mail',
      args: ['member', 'create', '--email', 'nope', '--name', 'X', '--password', 'long enough password'],
      table: 'members',
    },
    {
      why: 'a password of 11 characters',
      args: ['member', 'create', '--email', 'x@example.test', '--name', 'X', '--password', 'elevenchars'],
      table: 'members',
    },
    {
      why: 'one of the most common passwords',
      args: ['member', 'create', '--email', 'x@example.test', '--name', 'X', '--password', 'qwerty123456'],
      table: 'members',
    },
    { why: 'a missing flag', args: ['member', 'create', '--email', 'y@example.test'], table: 'members' },
    { why: 'an unknown flag', args: ['group', 'create', '--name', 'G', '--colour', 'red'], table: 'groups' },
    { why: 'an empty name', args: ['category', 'create', '--name', '  '], table: 'business_categories' },
    {
      why: 'an unknown group',
      args: ['group', 'add-member', '--group', '999999', '--member', '1'],
      table: 'group_members',
    },
    {
      why: 'a non-numeric member',
      args: ['group', 'add-member', '--group', '1', '--member', 'abc'],
      table: 'group_members',
    },
    { why: 'an unknown command', args: ['member', 'explode'], table: 'members' },
  ])('rejects $why with a message on stderr, a non-zero exit and nothing written', async ({ args, table }) => {
    const before = await cli.rowCount(table);
    const run = await runCli(args, cli.env);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/error: .+/);
    expect(await cli.rowCount(table)).toBe(before);
  });

  it('names the command or flag meant when the one typed is a slip away from it', async () => {
    const refusal = async (args: string[]) => {
      const run = await runCli(args, cli.env);
      expect(run).toMatchObject({ code: 2, stdout: '' });
      return run.stderr.split('\n')[0];
    };
    expect(await refusal(['client', 'list', '--onwer', '1'])).toBe(
      'error: unknown flag --onwer: did you mean --owner?',
    );
    expect(await refusal(['member', 'shwo', '--member', '1'])).toBe(
      'error: unknown command "member shwo": did you mean "member show"?',
    );
    expect(await refusal(['memebr', 'list'])).toBe('error: unknown command "memebr list": did you mean "member list"?');
    expect(await refusal(['janitr'])).toBe('error: unknown command "janitr": did you mean "janitor"?');
    // Nothing close: no guess.
    expect(await refusal(['group', 'create', '--name', 'G', '--colour', 'red'])).toBe('error: unknown flag --colour');
  });

  it('refuses a second member with the same e-mail in another case', async () => {
    await runCli(
      ['member', 'create', '--email', 'dup@example.test', '--name', 'One', '--password', 'long enough password'],
      cli.env,
    );
    const run = await runCli(
      ['member', 'create', '--email', 'DUP@example.test', '--name', 'Two', '--password', 'long enough password'],
      cli.env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('already exists');
  });
});

describe('pnpm cli with a setting it cannot use', () => {
  it.each([
    [
      { LOG_LEVEL: 'verbose' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"',
    ],
    [
      { DATABASE_URL: 'not-a-url' },
      'DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database), got "not-a-url"',
    ],
    [
      { DATABASE_URL: 'http://someone:hunter2@127.0.0.1:5432/x' },
      'DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database), got "http://someone:***@127.0.0.1:5432/x"',
    ],
  ])('refuses %j with one line naming it, exit code 2, nothing on stdout', async (setting, message) => {
    const run = await runCli(['member', 'list'], { ...cli.env, ...setting });
    expect(run.stderr).toBe(`error: ${message}\n`);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });

  it.each([
    [
      'a host that does not exist',
      'postgres://nope.invalid:5432/x',
      'error: could not connect to the database named by DATABASE_URL (nope.invalid:5432/x): the host "nope.invalid" ' +
        'was not found (getaddrinfo ENOTFOUND nope.invalid). Correct the host name in DATABASE_URL, or unset ' +
        'DATABASE_URL to use the embedded database.\n',
    ],
    [
      'a server that is down',
      'postgres://postgres@127.0.0.1:1/x',
      'error: could not connect to the database named by DATABASE_URL (127.0.0.1:1/x): connect ECONNREFUSED ' +
        '127.0.0.1:1. Check that the server runs and accepts connections, or unset DATABASE_URL to use the ' +
        'embedded database.\n',
    ],
  ])('explains %s in one paragraph on stderr, and keeps stdout empty', async (_why, url, message) => {
    const run = await runCli(['member', 'list'], { ...cli.env, DATABASE_URL: url });
    expect(run.stderr).toBe(message);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
  });

  it("explains a server without TLS under sslmode=require in one line, without pg's eight-line warning", async () => {
    const url = new URL(cli.env.DATABASE_URL as string);
    url.searchParams.set('sslmode', 'require');
    const run = await runCli(['member', 'list'], { ...cli.env, DATABASE_URL: url.href });
    expect(run.stderr).toMatch(
      /^error: could not open the database named by DATABASE_URL \(.+\): The server does not support SSL connections\.[^\n]*\n$/,
    );
    expect(run.code).toBe(1);
  });
});
