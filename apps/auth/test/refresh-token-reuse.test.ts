import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  consumedTwiceError,
  isRefreshTokenReuse,
  REFRESH_TOKEN_REUSE_DETAIL,
} from '../src/provider/refresh-token-reuse';

/** oidc-provider's refresh_token grant, as installed (its main module is lib/index.js). */
async function installedRefreshTokenGrant(): Promise<string> {
  const main = createRequire(import.meta.url).resolve('oidc-provider');
  return readFile(path.join(path.dirname(main), 'actions', 'grants', 'refresh_token.js'), 'utf8');
}

describe('the refresh-token reuse rule', () => {
  it('names exactly the message oidc-provider throws on reuse (fails when an upgrade changes it)', async () => {
    expect(await installedRefreshTokenGrant()).toContain(`throw new InvalidGrant('${REFRESH_TOKEN_REUSE_DETAIL}')`);
  });

  it('recognises the race of two refreshes as reuse too, and nothing else', () => {
    expect(isRefreshTokenReuse(consumedTwiceError('RefreshToken') as { error_detail?: string })).toBe(true);
    expect(isRefreshTokenReuse(consumedTwiceError('AuthorizationCode') as { error_detail?: string })).toBe(false);
    expect(isRefreshTokenReuse({ error_detail: 'grant request is invalid' })).toBe(false);
  });
});
