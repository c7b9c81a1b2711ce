import { describe, expect, it } from 'vitest';
import {
  clientSecretMatches,
  generateClientId,
  generateClientSecret,
  hashClientSecret,
} from '../src/lib/client-secrets';

describe('generated client ids', () => {
  it('are 16 base64url characters that never begin with a dash, so a command line takes them as values', () => {
    // 1 in 64 plain base64url ids begins with "-": 20,000 of them would hold ~300.
    const ids = Array.from({ length: 20_000 }, generateClientId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{15}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('generated client secrets', () => {
  it('are 43 letters and digits (256 bits), so a double-click selects the whole secret shown once', () => {
    // In base64url about half of all secrets held a "-", where a double-click's selection ends.
    const secrets = Array.from({ length: 5_000 }, generateClientSecret);
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    expect(new Set(secrets).size).toBe(secrets.length);
    // Every letter and digit occurs: the alphabet is all of base62, not a part of it.
    expect(new Set(secrets.join('')).size).toBe(62);
  });

  it('of the old base64url format still match their stored hash', () => {
    const old = 'frhc2-4MyTNfOPn9KmxRXSYJqPjZpzGAgMkfy-yoPPw';
    expect(clientSecretMatches(hashClientSecret(old), old)).toBe(true);
  });
});
