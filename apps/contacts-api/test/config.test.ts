import { ConfigError } from '@contacts/config';
import { describe, expect, it } from 'vitest';
import { loadContactsApiConfig } from '../src/config';

const secrets = { introspectionClientId: 'contacts-api', introspectionClientSecrets: ['s'.repeat(43)] };
const load = (env: NodeJS.ProcessEnv) => loadContactsApiConfig(env, { port: 3002, secrets });

describe('the contacts API configuration', () => {
  it('limits invalid tokens per caller address by default (600 a minute), and 0 switches that off', async () => {
    expect((await load({})).invalidTokenLimit).toEqual({ points: 600, duration: 60 });
    expect(
      (await load({ API_INVALID_TOKEN_LIMIT: '50', API_INVALID_TOKEN_LIMIT_WINDOW: '10' })).invalidTokenLimit,
    ).toEqual({
      points: 50,
      duration: 10,
    });
    expect((await load({ API_INVALID_TOKEN_LIMIT: '0' })).invalidTokenLimit).toBeUndefined();
  });

  it.each([
    ['API_INVALID_TOKEN_LIMIT', 'many', 'API_INVALID_TOKEN_LIMIT must be an integer >= 0, got "many"'],
    ['API_INVALID_TOKEN_LIMIT_WINDOW', '0', 'API_INVALID_TOKEN_LIMIT_WINDOW must be an integer >= 1, got "0"'],
    ['API_RATE_LIMIT', '-1', 'API_RATE_LIMIT must be an integer >= 0, got "-1"'],
  ])('refuses a malformed %s, naming it and the form it expects', async (name, value, message) => {
    const loading = load({ [name]: value });
    await expect(loading).rejects.toBeInstanceOf(ConfigError);
    await expect(loading).rejects.toThrow(message);
  });
});
