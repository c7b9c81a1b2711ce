import { hash } from 'node:crypto';
import { findMemberByEmail } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePassword } from '../src/lib/account-security';
import { signInGuard, unlockSignIn } from '../src/lib/sign-in-guard';

const TEST_SERVER_SECRET = 'a server secret of the tests, 32 characters or more';

import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember } from './support/factories';
import { loginForm, postSignIn } from './support/sign-in-form';

/**
 * The sign-in throttle under load and with odd input: each attempt is counted before its
 * password is checked, so parallel guesses cannot outrun the count (5 per account).
 */
let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

const signIn = (email: string, password: string) => postSignIn(server.baseUrl, email, password);

const eventsOf = async (memberId: number) =>
  (await server.database.db('audit_events').where({ member_id: memberId }).orderBy('id')).map(
    (row) => row.event as string,
  );
const addressCount = async () =>
  ((await server.database.db('rate_limits').where({ key: 'sign_in_ip:ip:127.0.0.1' }).first()) as { points: number })
    ?.points ?? 0;

describe('sign-in throttle', () => {
  it('checks at most 5 passwords of one account however many attempts arrive at once; the rest are 429', async () => {
    const member = await aMember(server.database.db);
    const forms = await Promise.all(Array.from({ length: 30 }, () => loginForm(server.baseUrl)));
    const before = await addressCount();
    const statuses = (await Promise.all(forms.map((post) => post(member.email, 'wrong password')))).map(
      (response) => response.status,
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    const events = await eventsOf(member.id);
    expect(events.filter((event) => event === 'sign_in.failed')).toHaveLength(5);
    expect(events.filter((event) => event === 'sign_in.throttled')).toHaveLength(25);
    // Only the checked passwords count against the address.
    expect((await addressCount()) - before).toBe(5);
    // Still locked, the right password too.
    expect((await signIn(member.email, member.password)).status).toBe(429);
  });

  it('counts every spelling of an address that finds the same member against one allowance (İ, capitals)', async () => {
    const member = await aMember(server.database.db, { email: `victim-${Date.now()}@example.test` });
    const db = server.database.db;
    // U+0130: PostgreSQL's lower() makes it "i", as the member lookup compares; JavaScript's makes "i̇".
    const variants = [member.email.replace('i', '\u0130'), member.email.toUpperCase()];
    for (const variant of variants) expect((await findMemberByEmail(db, variant))?.id).toBe(member.id);
    for (let attempt = 0; attempt < 5; attempt++)
      expect((await signIn(member.email, 'wrong password')).status).toBe(401);
    for (const variant of variants) expect((await signIn(variant, 'wrong password')).status).toBe(429);
    expect((await signIn(variants[0] as string, member.password)).status).toBe(429);
  });

  it('takes an accented address composed or decomposed as one: sign-in, the allowance, and a second registration', async () => {
    const composed = `ren\u00e9-${Date.now()}@example.test`;
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    // Registered decomposed (as some keyboards type it), stored composed.
    const member = await aMember(server.database.db, { email: decomposed });
    expect(member.email).toBe(composed);
    await expect(aMember(server.database.db, { email: composed })).rejects.toThrow(
      'A member with this e-mail address already exists.',
    );
    for (let attempt = 0; attempt < 5; attempt++)
      expect((await signIn(attempt % 2 ? composed : decomposed, 'wrong password')).status).toBe(401);
    expect((await signIn(composed, member.password)).status).toBe(429);
    await unlockSignIn(server.database.db, member.id);
    expect((await signIn(decomposed, member.password)).status).toBe(303);
  });

  it("tells whoever knows a disabled account's password that it is disabled; a wrong one gets the usual answer", async () => {
    const member = await aMember(server.database.db);
    await server.database.db('members').where({ id: member.id }).update({ disabled_at: new Date() });
    const right = await signIn(member.email, member.password);
    expect(right.status).toBe(403);
    expect(await right.text()).toContain(
      'This account is disabled. Ask the administrator of this site to enable it again.',
    );
    expect(right.headers.get('set-cookie') ?? '').not.toContain('member_session');
    const wrong = await signIn(member.email, 'wrong password');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The e-mail address or password is not correct.');
  });

  it('does not count a form without an e-mail address or password (nor, at the address, a right password)', async () => {
    const member = await aMember(server.database.db);
    const before = await addressCount();
    for (let attempt = 0; attempt < 6; attempt++) {
      const empty = await signIn(member.email, '');
      expect(empty.status).toBe(422);
      expect(await empty.text()).toContain('Enter your e-mail address and password.');
      expect((await signIn('', 'a password')).status).toBe(422);
    }
    expect(await addressCount()).toBe(before);
    expect(await eventsOf(member.id)).toEqual([]);
    expect((await signIn(member.email, member.password)).status).toBe(303);
    expect(await addressCount()).toBe(before);
  });

  it('answers an e-mail address with a NUL character as a wrong sign-in, not a server error', async () => {
    for (const email of ['a\u0000@x.com', '\u0000']) {
      const response = await signIn(email, 'a password');
      expect(response.status).toBe(401);
      expect(await response.text()).toContain('The e-mail address or password is not correct.');
    }
  });

  it('locks an account whose e-mail address is as long as allowed', async () => {
    // 254 characters: a local part of 64 (RFC 5321's most) and labels of at most 63.
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(56)}.test`;
    expect(email).toHaveLength(254);
    const member = await aMember(server.database.db, { email });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await signIn(member.email, 'wrong password')).status).toBe(401);
    }
    expect((await signIn(member.email, member.password)).status).toBe(429);
  });
});

describe('whose attempts lock what', () => {
  const guard = () => signInGuard(server.database.db, TEST_SERVER_SECRET);
  const fail = async (email: string, ip: string) => guard().beginAttempt(email, ip);
  const accountKeys = async () =>
    (await server.database.db('rate_limits').where('key', 'like', 'sign_in_account%').pluck('key')) as string[];

  it('locks an account only at the address the failures came from: the member signs in from their own', async () => {
    const member = await aMember(server.database.db);
    for (let attempt = 0; attempt < 5; attempt++) expect(await fail(member.email, '203.0.113.7')).toBeUndefined();
    expect(await fail(member.email, '203.0.113.7')).toBeGreaterThan(0);
    // Another address: the guesser's five failures do not lock the member out there.
    expect(await fail(member.email, '198.51.100.20')).toBeUndefined();
    await guard().succeeded(member.email, '198.51.100.20');
  });

  it('locks an account everywhere after 100 failures an hour, from any number of addresses', async () => {
    const member = await aMember(server.database.db);
    for (let address = 0; address < 20; address++) {
      for (let attempt = 0; attempt < 5; attempt++) {
        expect(await fail(member.email, `192.0.2.${address + 1}`)).toBeUndefined();
      }
    }
    expect(await fail(member.email, '192.0.2.200')).toBeGreaterThan(0);
    // The operator lifts it, at every address.
    await unlockSignIn(server.database.db, member.id);
    expect(await fail(member.email, '192.0.2.1')).toBeUndefined();
    expect(await fail(member.email, '192.0.2.201')).toBeUndefined();
  });

  it('keeps nothing typed into the e-mail field: a member by id, anything else by an HMAC under a server key', async () => {
    const member = await aMember(server.database.db);
    const typed = `a password typed in the wrong field ${Date.now()}`;
    const keysBefore = new Set(await accountKeys());
    await fail(typed, '203.0.113.50');
    await fail(`${typed}!`, '203.0.113.50');
    await fail(member.email, '203.0.113.50');
    const added = (await accountKeys()).filter((key) => !keysBefore.has(key));
    expect(added).toContain(`sign_in_account:member:${member.id}`);
    expect(added).toContain(`sign_in_account_address:member:${member.id}:ip:203.0.113.50`);
    // Two unknown addresses, two buckets, neither derivable without the server's key.
    const unknown = added.filter((key) => key.startsWith('sign_in_account:unknown:'));
    expect(unknown).toHaveLength(2);
    for (const key of unknown) expect(key).toMatch(/^sign_in_account:unknown:[\w-]{43}$/);
    const plain = hash('sha256', typed.toLowerCase(), 'base64url');
    expect(
      added.some((key) => key.includes(plain.slice(0, 8)) || key.includes(typed) || key.includes(member.email)),
    ).toBe(false);
  });
});

describe('the current password of a password change', () => {
  it('is checked at most 5 times however many changes arrive at once, like a sign-in', async () => {
    const member = await aMember(server.database.db);
    const guard = signInGuard(server.database.db, TEST_SERVER_SECRET);
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        changePassword(server.database.db, guard, {
          memberId: member.id,
          currentPassword: 'not the password',
          newPassword: 'a perfectly fine new passphrase',
          revokeTokens: false,
          keepSessionIdHash: 'none',
          ip: '198.51.100.7',
        }),
      ),
    );
    const messages = attempts.map((attempt) =>
      attempt.status === 'rejected' ? (attempt.reason as Error).message : 'changed',
    );
    expect(messages.filter((message) => message === 'The current password is not correct.')).toHaveLength(5);
    expect(
      messages.filter((message) => /^Too many wrong passwords\. Try again in \d+ minutes?\.$/.test(message)),
    ).toHaveLength(15);
  });
});
