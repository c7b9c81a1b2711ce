import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The gateway configuration, nginx.conf.template, is filled in by the official nginx image's
 * envsubst in docker-compose and by `renderGatewayConfig` in the tests: both replace exactly the
 * `${NAME}` placeholders it declares (nginx's own `$variables` have no braces and stay).
 */
export const GATEWAY_TEMPLATE_PATH = fileURLToPath(new URL('../nginx.conf.template', import.meta.url));

export const GATEWAY_VARIABLES = [
  'GATEWAY_PORT',
  'GATEWAY_RESOLVER',
  'GATEWAY_ACCESS_LOG',
  'AUTH_SERVERS',
  'CONTACTS_API_SERVERS',
] as const;

export type GatewayVariables = Record<(typeof GATEWAY_VARIABLES)[number], string>;

/** The placeholders the template uses (outside comments). */
export function templatePlaceholders(template = readFileSync(GATEWAY_TEMPLATE_PATH, 'utf8')): string[] {
  const code = template
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  return [...new Set([...code.matchAll(/\$\{([A-Z_]+)\}/g)].map((match) => match[1] as string))];
}

export function renderGatewayConfig(
  variables: GatewayVariables,
  template = readFileSync(GATEWAY_TEMPLATE_PATH, 'utf8'),
): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (placeholder, name: string) =>
    name in variables ? variables[name as keyof GatewayVariables] : placeholder,
  );
}

/**
 * The passive health check of every upstream server: three failures within 2 s take a replica out
 * for 2 s (one spurious reset of a kept-alive connection must not). Short, because a replica being
 * restarted fails connections for the second it is down, and stays out for the whole period after
 * it is back: with 10 s, restarting the next replica of a pair within 10 s left none (a rolling
 * restart's outage, 2026-11-25). docker-compose.yml writes the same.
 */
export const PASSIVE_HEALTH_CHECK = 'max_fails=3 fail_timeout=2s';

/** `server …;` lines for an upstream block, with the passive health check. */
export function upstreamServers(addresses: string[], parameters = PASSIVE_HEALTH_CHECK): string {
  return addresses.map((address) => `server ${address} ${parameters};`).join(' ');
}
