import { describe, expect, it } from 'vitest';
import { generateClientId } from '../src/lib/client-secrets';

describe('generated client ids', () => {
  it('are 16 base64url characters that never begin with a dash, so a command line takes them as values', () => {
    // 1 in 64 plain base64url ids begins with "-": 20,000 of them would hold ~300.
    const ids = Array.from({ length: 20_000 }, generateClientId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{15}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
