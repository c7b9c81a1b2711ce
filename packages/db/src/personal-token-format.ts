import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The format of personal access tokens, as GitHub's (`ghp_…`): a fixed prefix that secret
 * scanners can match, 40 random base62 characters (≈238 bits), and 6 base62 characters of the
 * CRC32 of those 40. The checksum lets anyone tell a mistyped or made-up value from a real
 * one without asking the server; it adds no secrecy.
 *
 * A scanner matches `\bmct_[0-9A-Za-z]{46}\b` (see PERSONAL_TOKEN_PATTERN).
 */
export const PERSONAL_TOKEN_PREFIX = 'mct_';
const RANDOM_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const PERSONAL_TOKEN_PATTERN = /\bmct_[0-9A-Za-z]{46}\b/;

function base62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

/**
 * `length` uniformly random base62 characters (log2 62 ≈ 5.95 bits each). Letters and digits
 * only, so that a value shown once is selected whole by a double-click (a `-` ends the word)
 * and needs no escaping anywhere: personal tokens, and client secrets too.
 */
export function randomBase62(length: number): string {
  let random = '';
  for (let i = 0; i < length; i += 1) random += BASE62[randomInt(62)];
  return random;
}

export function generatePersonalTokenValue(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${PERSONAL_TOKEN_PREFIX}${random}${checksumOf(random)}`;
}

/** Whether the value claims to be a personal token (it carries the prefix). */
export function hasPersonalTokenPrefix(value: string): boolean {
  return value.startsWith(PERSONAL_TOKEN_PREFIX);
}

/** Whether a value with the prefix is well formed and its checksum matches. */
export function isWellFormedPersonalToken(value: string): boolean {
  if (value.length !== PERSONAL_TOKEN_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH) return false;
  if (!hasPersonalTokenPrefix(value)) return false;
  const body = value.slice(PERSONAL_TOKEN_PREFIX.length);
  if (!/^[0-9A-Za-z]+$/.test(body)) return false;
  return checksumOf(body.slice(0, RANDOM_LENGTH)) === body.slice(RANDOM_LENGTH);
}
