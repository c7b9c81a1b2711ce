import type { IncomingMessage } from 'node:http';

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

/**
 * [security] What the production gateway does to every request's forwarding headers
 * (apps/gateway/nginx.conf.template), for a launcher that is itself the outermost server
 * (`pnpm start`): the client's own X-Forwarded-For is replaced by the address it connects from,
 * so that a client cannot pick the address the sign-in throttle, the security log and the
 * session list see; X-Forwarded-Proto keeps only a claim of https (a client claiming it over
 * plain http only gets Secure cookies its browser will not send back); X-Forwarded-Host is the
 * Host.
 */
export function asOutermostProxy(req: IncomingMessage): void {
  req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  req.headers['x-forwarded-proto'] = req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  if (req.headers.host) req.headers['x-forwarded-host'] = req.headers.host;
  else delete req.headers['x-forwarded-host'];
}
