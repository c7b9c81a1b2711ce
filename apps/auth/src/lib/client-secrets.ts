import { randomBytes, timingSafeEqual } from 'node:crypto';
import { randomBase62, tokenHash } from '@contacts/db';

/** 43 base62 characters: 256.03 bits, as many as the 32 random bytes secrets used to be. */
const CLIENT_SECRET_LENGTH = 43;

/**
 * Client secrets are 256-bit random values, so one SHA-256 is enough to store them safely
 * (no dictionary to try), and cheap enough for the token endpoint's every request.
 * Letters and digits only, as personal tokens: a secret is shown once, and in base64url about
 * every other one held a `-`, where a double-click's selection stopped, so half a secret was
 * copied. Secrets made before (base64url) keep working: only their hashes are stored.
 */
export function generateClientSecret(): string {
  return randomBase62(CLIENT_SECRET_LENGTH);
}

/**
 * 96 random bits in base64url, never beginning with `-`: an id is pasted into commands
 * (`pnpm -s cli client show --client ID`), where a leading dash reads as an option.
 */
export function generateClientId(): string {
  for (;;) {
    const id = randomBytes(12).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export function hashClientSecret(secret: string): string {
  return `sha256$${tokenHash(secret)}`;
}

/**
 * The hashes of several secrets, any of which is accepted, in one `client_secret`: the contacts
 * API's old and new introspection secret while a rotation rolls out.
 */
export function hashClientSecrets(secrets: readonly string[]): string {
  return secrets.map(hashClientSecret).join(' ');
}

/** Whether `candidate` is the secret, or one of the secrets, whose hash `storedHashes` holds. */
export function clientSecretMatches(storedHashes: string, candidate: string): boolean {
  const actual = Buffer.from(hashClientSecret(candidate));
  return storedHashes.split(' ').some((storedHash) => {
    const expected = Buffer.from(storedHash);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  });
}

/**
 * A short name of the current secret that the rotate form carries, so that a second submission
 * of the same form (a reload, Back) is recognised: it names a secret that is gone. Derived from
 * the stored hash (a hash of it, cut short), so the page reveals nothing about the secret itself.
 */
export function secretVersion(storedHash: string): string {
  return tokenHash(`secret-version:${storedHash}`).slice(0, 16);
}
