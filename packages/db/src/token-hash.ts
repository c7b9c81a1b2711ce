import { hash } from 'node:crypto';

/**
 * The one-way name of a token (or any bearer secret): base64url SHA-256. Tokens are 256-bit
 * random values, so a fast hash is enough to make a stolen table useless. Both services use it:
 * the auth server stores and announces revoked tokens by it, the contacts API caches by it.
 */
export function tokenHash(value: string): string {
  return hash('sha256', value, 'base64url');
}
