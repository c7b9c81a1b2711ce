/**
 * Which service answers which path under the one public base URL. The launcher (`pnpm start`)
 * and the production gateway configuration follow this same table.
 */
export const CONTACTS_API_PATH_PREFIXES = ['/v3/', '/v4/', '/openapi.json', '/docs'] as const;

export function isContactsApiPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return CONTACTS_API_PATH_PREFIXES.some((prefix) =>
    prefix.endsWith('/')
      ? path.startsWith(prefix) || path === prefix.slice(0, -1)
      : path === prefix || path.startsWith(`${prefix}/`),
  );
}
