import { randomBytes, timingSafeEqual } from 'node:crypto';
import { tokenHash } from '@contacts/db';

/**
 * Client secrets are 256-bit random values, so one SHA-256 is enough to store them safely
 * (no dictionary to try), and cheap enough for the token endpoint's every request.
 */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function generateClientId(): string {
  return randomBytes(12).toString('base64url');
}

export function hashClientSecret(secret: string): string {
  return `sha256$${tokenHash(secret)}`;
}

export function clientSecretMatches(storedHash: string, candidate: string): boolean {
  const expected = Buffer.from(storedHash);
  const actual = Buffer.from(hashClientSecret(candidate));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
