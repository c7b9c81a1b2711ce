import { describe, expect, it } from 'vitest';
import { InputError, requireEmail } from '../src/lib/validation';

/** A member's sign-in address, as the pages and `member create` take it. */
describe("a member's e-mail address", () => {
  it.each([
    ['an unterminated quote with markup', '"><b>y@example.com'],
    ['no domain dot', 'someone@localhost'],
    ['two @', 'a@b@example.com'],
    ['a space inside', 'some one@example.com'],
    ['a local part over 64 octets', `${'x'.repeat(65)}@example.com`],
    ['nothing before the @', '@example.com'],
    ['a control character (pasted)', 'ada\u0001@example.com'],
    ['DEL', 'ada\u007f@example.com'],
    ['a zero-width space, invisible where the member reads it', 'ada\u200b@example.com'],
  ])('refuses %s', (_why, address) => {
    expect(() => requireEmail(address)).toThrow(new InputError('Enter a valid e-mail address.', 'email'));
  });

  it.each([
    ['a plain address', 'ada@example.com', 'ada@example.com'],
    ['a plus tag, trimmed', '  ada+contacts@example.co.uk ', 'ada+contacts@example.co.uk'],
    ['international characters, composed', 'rene\u0301@exa\u0308mple.com', 'ren\u00e9@ex\u00e4mple.com'],
    ['a quoted local part', '"ada lovelace"@example.com', '"ada lovelace"@example.com'],
  ])('takes %s', (_why, entered, stored) => {
    expect(requireEmail(entered)).toBe(stored);
  });
});
