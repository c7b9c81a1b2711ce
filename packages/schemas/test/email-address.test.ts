import { describe, expect, it } from 'vitest';
import { contactCreateV4, isEmailAddress, validate } from '../src/index';

describe('e-mail addresses: what RFC 5322 (and RFC 6531) write, as the original service took them', () => {
  it.each([
    'ada@example.com',
    'first.last+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'a!b#c$d%e&f*g=h?i^j`k{l|m}n~o@example.com',
    'user@localhost',
    'user@[192.0.2.1]',
    'user@[IPv6:2001:db8::1]',
    '"john doe"@example.com',
    '"quoted\\"inside"@example.com',
    'üser@example.com',
    'user@exämple.com',
    'user@example.xn--p1ai',
    'пользователь@пример.рф',
    `${'a'.repeat(64)}@example.com`,
  ])('accepts %s', (address) => {
    expect(isEmailAddress(address)).toBe(true);
  });

  it.each([
    '',
    'not-an-email',
    '@example.com',
    'user@',
    'user@@example.com',
    'user @example.com',
    'user@exa mple.com',
    '.user@example.com',
    'user.@example.com',
    'us..er@example.com',
    'user@example..com',
    'user@-example.com',
    'user@example-.com',
    'user@[300.1.1.1]',
    '"unclosed@example.com',
    'tab\t@example.com',
    'line\nbreak@example.com',
    'zero\u200bwidth@example.com',
    `${'a'.repeat(65)}@example.com`,
    `${'ü'.repeat(33)}@example.com`,
  ])('refuses %j', (address) => {
    expect(isEmailAddress(address)).toBe(false);
  });

  it('trims an address as every other field is trimmed, and clears it when sent blank', () => {
    expect(validate(contactCreateV4, { name: 'A', email: '  ada@example.com ' })).toMatchObject({
      ok: true,
      value: { email: 'ada@example.com' },
    });
    expect(validate(contactCreateV4, { name: 'A', email: '   ' })).toMatchObject({ ok: true, value: { email: null } });
    expect(validate(contactCreateV4, { name: 'A', email: `${'a'.repeat(250)}@b.c` }).ok).toBe(false);
  });
});
