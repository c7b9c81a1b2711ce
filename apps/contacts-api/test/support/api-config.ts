import type { SharedSecrets } from '@contacts/config';
import { type ContactsApiConfig, loadContactsApiConfig } from '../../src/index';

/**
 * The contacts API's configuration as the shipped settings reader makes it (every default and
 * validation of config.ts), for a test: the rate limits off and no janitor timer unless the test
 * gives them (tests run janitor passes themselves), at the URLs the test's listeners got.
 */
export async function testApiConfig(
  urls: { publicUrl: string; authUrl: string; authInternalUrl?: string },
  secrets: Pick<SharedSecrets, 'introspectionClientId' | 'introspectionClientSecrets'>,
  overrides: Partial<Pick<ContactsApiConfig, 'apiRateLimit' | 'invalidTokenLimit'>> = {},
): Promise<ContactsApiConfig> {
  const loaded = await loadContactsApiConfig(
    {
      NODE_ENV: 'test',
      PUBLIC_URL: urls.publicUrl,
      AUTH_URL: urls.authUrl,
      AUTH_INTERNAL_URL: urls.authInternalUrl ?? urls.authUrl,
      API_RATE_LIMIT: '0',
      API_INVALID_TOKEN_LIMIT: '0',
      JANITOR_INTERVAL: '0',
    },
    { port: 0, secrets },
  );
  return { ...loaded, ...overrides };
}
