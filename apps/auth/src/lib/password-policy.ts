import { dictionary } from '@zxcvbn-ts/language-common';
import { InputError } from './validation';

/**
 * The one password rule, for the pages and the CLI alike (NIST SP 800-63B §3.1.1.2): at least
 * 12 characters, at most 1024, and not one of the most common passwords (zxcvbn-ts's list of
 * about 49,000, compared without regard to case), nor one character repeated. No composition
 * rules: length beats them.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

let common: Set<string> | undefined;
function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase()));
  return common.has(password.toLowerCase());
}

/** The password when it is acceptable; otherwise an InputError with a message for the member. */
export function requireAcceptablePassword(value: unknown, field = 'password'): string {
  const password = typeof value === 'string' ? value : '';
  // Counted in characters as a person sees them, not UTF-16 units.
  const length = [...password.normalize('NFKC')].length;
  if (length < MIN_PASSWORD_LENGTH) {
    throw new InputError(`The password must be at least ${MIN_PASSWORD_LENGTH} characters.`, field);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new InputError(`The password must be at most ${MAX_PASSWORD_LENGTH} characters.`, field);
  }
  if (isCommonPassword(password)) {
    throw new InputError('This password is one of the most common ones; choose another.', field);
  }
  // §3.1.1.2's "repetitive characters": twelve of one character (spaces included) is no password.
  if (new Set(password.normalize('NFKC')).size === 1) {
    throw new InputError('The password must not be one character repeated; choose another.', field);
  }
  return password;
}
