import { isRowId, MAX_ROW_ID } from '@contacts/db';
import { requireAcceptablePassword } from './password-policy';
/** A problem with what a member or operator entered, with a message meant for them. */
export class InputError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

// Deliberately simple: one @, something on each side, a dot in the domain, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function requireEmail(value: unknown, field = 'email'): string {
  const email = typeof value === 'string' ? value.trim() : '';
  if (!EMAIL.test(email) || email.length > 254) throw new InputError('Enter a valid e-mail address.', field);
  return email;
}

export function requireText(value: unknown, field: string, label: string, max = 255): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') throw new InputError(`${label} is required.`, field);
  if (text.length > max) throw new InputError(`${label} must be at most ${max} characters.`, field);
  // PostgreSQL text cannot hold NUL: refused here rather than failing the insert.
  if (text.includes('\u0000')) throw new InputError(`${label} must not contain NUL characters.`, field);
  return text;
}

/** [security] The password rule lives in password-policy.ts (pages and CLI alike). */
export function requirePassword(value: unknown, field = 'password'): string {
  return requireAcceptablePassword(value, field);
}

export function requirePositiveInteger(value: unknown, field: string, label: string): number {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!isRowId(number)) throw new InputError(`${label} must be a positive integer of at most ${MAX_ROW_ID}.`, field);
  return number;
}
