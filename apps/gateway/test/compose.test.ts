import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type SettingsProcess, settingsReadBy } from '@contacts/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY_TEMPLATE_PATH,
  GATEWAY_VARIABLES,
  PASSIVE_HEALTH_CHECK,
  renderGatewayConfig,
  templatePlaceholders,
} from '../src/index';
import { checkNginxConfig, findNginx, writeNginxConfig } from './support/nginx';
import { REPO_ROOT } from './support/replicas';

/**
 * docker-compose.yml, the Dockerfiles and the gateway configuration, checked with the real tools
 * (no Docker engine runs here): Debian's docker-compose (1.29) resolves and validates the file
 * offline, nginx -t validates the gateway configuration.
 */
const composeFile = path.join(REPO_ROOT, 'docker-compose.yml');
const compose = readFileSync(composeFile, 'utf8');
const envExample = readFileSync(path.join(REPO_ROOT, '.env.example'), 'utf8');

function findDockerCompose(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v docker-compose'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}
const dockerCompose = findDockerCompose();
const nginx = findNginx();
const requireTool = (tool: string | undefined, name: string, pkg: string) => {
  if (!tool && !process.env.CI) console.warn(`SKIPPED ${name} checks: ${pkg} is not installed. In CI they run.`);
  return !!tool || !!process.env.CI;
};

const SECRETS = {
  POSTGRES_PASSWORD: 'secret',
  COOKIE_KEYS: 'key-one,key-two',
  JWKS: '{"keys":[]}',
  INTROSPECTION_CLIENT_SECRET: 'introspection-secret',
};

/** The compose services that run the product's code, and the process each runs (its settings registry entry). */
const COMPOSE_PROCESSES: Record<string, SettingsProcess> = {
  auth: 'auth',
  'contacts-api': 'contacts-api',
  // The CLI: `migrate latest`, and `docker compose run --rm migrate janitor` (or any command).
  migrate: 'cli',
};

/** Settings a service reads that docker-compose.yml deliberately does not pass it, each with why. */
const FOR_DEVELOPMENT: Record<string, string> = {
  DATA_DIR: 'development only: the embedded database and generated secrets; compose gives DATABASE_URL and the secrets',
  EMBEDDED_PG_PORT: 'development only: the embedded PostgreSQL; compose runs its own postgres service',
};
const NOT_IN_COMPOSE: Record<string, Record<string, string>> = {
  auth: {
    ...FOR_DEVELOPMENT,
    LISTEN_ADDRESS: 'the default, every interface, is right on the private compose network',
    MIGRATE_ON_START: 'the default, false, is right: the migrate service migrates before the services start',
  },
  'contacts-api': {
    ...FOR_DEVELOPMENT,
    LISTEN_ADDRESS: 'the default, every interface, is right on the private compose network',
    MIGRATE_ON_START: 'the default, false, is right: the migrate service migrates before the services start',
    AUTH_URL: 'the default, PUBLIC_URL, is right: the one gateway publishes both services',
    COOKIE_KEYS: 'read only to check a value given; the API never uses it, and compose keeps it from the API',
    JWKS: 'read only to check a value given; the API never uses it, and compose keeps it from the API',
  },
  migrate: {
    ...FOR_DEVELOPMENT,
    DB_POOL_MAX:
      "the default is plenty for one command; .env sizes the services' pools (AUTH_/CONTACTS_API_DB_POOL_MAX)",
    CLI_DEBUG: "a developer's switch: `docker compose run --rm -e CLI_DEBUG=1 migrate …` when wanted",
  },
};

function runCompose(args: string[], env: Record<string, string> = {}) {
  if (!dockerCompose) throw new Error('CI is set but docker-compose is not installed: .ci/run must install it');
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
  return spawnSync(
    dockerCompose,
    ['--project-directory', REPO_ROOT, '-f', composeFile, '--env-file', path.join(REPO_ROOT, '.env.example'), ...args],
    { encoding: 'utf8', env: { ...base, ...env } },
  );
}

/** The resolved configuration of one service, as docker-compose prints it. */
function serviceSection(resolved: string, name: string): string {
  const lines = resolved.split('\n');
  const start = lines.indexOf(`  ${name}:`);
  expect(start, `service ${name}`).toBeGreaterThan(-1);
  const end = lines.findIndex((line, index) => index > start && /^ {2}\S/.test(line));
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

describe.skipIf(!requireTool(dockerCompose, 'docker-compose', "Debian's docker-compose"))('docker-compose.yml', () => {
  // docker-compose 1.29 takes seconds to start: resolve the file once.
  let resolved = '';
  beforeAll(() => {
    const result = runCompose(['config'], SECRETS);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    resolved = result.stdout;
  });

  it('is valid, with the five services and a named volume for PostgreSQL', () => {
    const services = resolved.slice(resolved.indexOf('services:\n'), resolved.indexOf('\nvolumes:\n'));
    expect([...services.matchAll(/^ {2}([a-z-]+):$/gm)].map((match) => match[1]).sort()).toEqual(
      ['auth', 'contacts-api', 'gateway', 'migrate', 'postgres'].sort(),
    );
    expect(resolved).toMatch(/\nvolumes:\n {2}pgdata: \{\}/);
    expect(serviceSection(resolved, 'postgres')).toContain('- pgdata:/var/lib/postgresql');
  });

  it('refuses to start without the secrets, naming the missing one', () => {
    for (const name of Object.keys(SECRETS)) expect(compose).toContain(`\${${name}:?set ${name} in .env`);
    const result = runCompose(['config', '-q'], { ...SECRETS, COOKIE_KEYS: '' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('set COOKIE_KEYS in .env');
  });

  it('builds both services from their Dockerfiles, after the migrate step, healthchecked and scalable', () => {
    for (const [service, port] of [
      ['auth', 3001],
      ['contacts-api', 3002],
    ] as const) {
      const section = serviceSection(resolved, service);
      expect(section).toContain(`dockerfile: apps/${service}/Dockerfile`);
      expect(section).toMatch(/migrate:\n\s+condition: service_completed_successfully/);
      expect(section).toMatch(/postgres:\n\s+condition: service_healthy/);
      expect(section).toContain(`http://127.0.0.1:${port}/readyz`);
      expect(section).toContain('init: true');
      expect(section).toContain('NODE_ENV: production');
      // --scale needs neither a fixed container name nor a published host port.
      expect(section).not.toContain('container_name');
      expect(section).not.toMatch(/\n {4}ports:/);
    }
    expect(serviceSection(resolved, 'contacts-api')).not.toMatch(/JWKS|COOKIE_KEYS/);
    expect(serviceSection(resolved, 'migrate')).toMatch(/command:\n\s+- migrate\n\s+- latest/);
    expect(serviceSection(resolved, 'postgres')).toMatch(/pg_isready/);
    const gateway = serviceSection(resolved, 'gateway');
    expect(gateway).toMatch(/published: 8080|8080:8080/);
    expect(gateway).toContain('/etc/nginx/templates/default.conf.template');
  });

  it('gives the gateway every variable of the one gateway template it mounts', () => {
    expect(compose).toContain(
      `./${path.relative(REPO_ROOT, GATEWAY_TEMPLATE_PATH)}:/etc/nginx/templates/default.conf.template:ro`,
    );
    expect(templatePlaceholders().sort()).toEqual([...GATEWAY_VARIABLES].sort());
    const gateway = compose.slice(compose.indexOf('\n  gateway:'));
    for (const name of GATEWAY_VARIABLES) expect(gateway, name).toMatch(new RegExp(`\\n {6}${name}: \\S`));
    // The same passive health check as the tests' gateway (upstreamServers).
    expect(gateway).toContain(`server auth:3001 resolve ${PASSIVE_HEALTH_CHECK};`);
    expect(gateway).toContain(`server contacts-api:3002 resolve ${PASSIVE_HEALTH_CHECK};`);
  });

  it('passes each service every setting it reads (a value set in .env is never silently ignored)', async () => {
    // The settings each process reads come from the code (@contacts/cli's settings registry), so a
    // new setting fails here until the compose file passes it or it is added to NOT_IN_COMPOSE.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'contacts-compose-settings-'));
    try {
      for (const [service, runs] of Object.entries(COMPOSE_PROCESSES)) {
        const section = serviceSection(resolved, service);
        const read = await settingsReadBy(runs, { DATA_DIR: dataDir });
        const leftOut = NOT_IN_COMPOSE[service] ?? {};
        for (const name of read.filter((setting) => !Object.hasOwn(leftOut, setting))) {
          expect(section, `${service} ${name}`).toMatch(new RegExp(`\\n {6}${name}: `));
        }
        // An exception the code or the compose file has since made pointless goes from the list.
        for (const name of Object.keys(leftOut)) {
          expect(read, `${service} reads ${name}`).toContain(name);
          expect(section, `${service} is not given ${name}`).not.toMatch(new RegExp(`\\n {6}${name}: `));
        }
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // stop_grace_period follows .env too, so that a longer SHUTDOWN_TIMEOUT can be given room.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's own ${…} substitution, as the file spells it
    expect(compose).toContain('stop_grace_period: ${STOP_GRACE_PERIOD:-20s}');
  });

  it('.env.example lists every setting the compose file reads', () => {
    const code = compose
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n');
    const used = new Set([...code.matchAll(/\$\{([A-Z_]+)/g)].map((match) => match[1] as string));
    const listed = new Set([...envExample.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1] as string));
    expect([...used].filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !used.has(name))).toEqual([]);
  });
});

describe('the Dockerfiles', () => {
  it.each(['auth', 'contacts-api', 'cli'])('%s: multi-stage Node 24, pnpm deploy, non-root', (app) => {
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'apps', app, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('ARG NODE_IMAGE=node:24-');
    expect(dockerfile.match(/^FROM /gm)?.length).toBe(2);
    expect(dockerfile).toContain(`pnpm --filter @contacts/${app} deploy`);
    expect(dockerfile).toMatch(/^USER node$/m);
    if (app !== 'cli') {
      expect(dockerfile).toMatch(/^HEALTHCHECK /m);
      // The image runs the bundle exactly as the package's start script does (the script the
      // multi-replica test and the benchmarks run).
      const { scripts } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps', app, 'package.json'), 'utf8')) as {
        scripts: { start: string };
      };
      expect(dockerfile).toContain(`CMD ${JSON.stringify(scripts.start.split(' '))}`.replaceAll('","', '", "'));
      expect(dockerfile).toContain(`pnpm --filter @contacts/${app} build`);
    }
  });
});

describe.skipIf(!requireTool(nginx, 'nginx -t', "Debian's nginx"))('the gateway configuration', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'contacts-gateway-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes nginx -t as the tests run it', () => {
    if (!nginx) throw new Error('CI is set but nginx is not installed: .ci/run must install nginx-light');
    const { configFile } = writeNginxConfig({
      dir,
      port: 18080,
      authAddresses: ['127.0.0.1:13001', '127.0.0.1:13002'],
      apiAddresses: ['127.0.0.1:13003'],
    });
    checkNginxConfig(nginx, dir, configFile);
  });

  it('passes nginx -t as docker-compose fills it in', () => {
    if (!nginx) throw new Error('CI is set but nginx is not installed: .ci/run must install nginx-light');
    const value = (name: string) => {
      const match = new RegExp(`\\n {6}${name}: (.+)`).exec(compose);
      return (match?.[1] ?? '').trim();
    };
    let rendered = renderGatewayConfig({
      GATEWAY_PORT: '127.0.0.1:18081',
      GATEWAY_RESOLVER: value('GATEWAY_RESOLVER'),
      GATEWAY_ACCESS_LOG: path.join(dir, 'compose-access.log'),
      AUTH_SERVERS: value('AUTH_SERVERS'),
      CONTACTS_API_SERVERS: value('CONTACTS_API_SERVERS'),
    });
    const version = spawnSync(nginx, ['-v'], { encoding: 'utf8' }).stderr; // nginx -v answers on stderr
    const [major = 0, minor = 0, patch = 0] = (/nginx\/(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1) ?? []).map(Number);
    if (major * 1e6 + minor * 1e3 + patch < 1_027_003) {
      // Debian 12's nginx (1.22) predates `resolve` on upstream servers (1.27.3, the image has
      // 1.28) and cannot resolve Docker's service names: check everything else.
      rendered = rendered.replaceAll(' resolve', '').replace(/server (auth|contacts-api):/g, 'server 127.0.0.1:');
    }
    writeFileSync(path.join(dir, 'compose-gateway.conf'), rendered);
    const main = path.join(dir, 'compose-nginx.conf');
    writeFileSync(
      main,
      `pid ${path.join(dir, 'compose.pid')};\nevents {}\nhttp {\n  include ${path.join(dir, 'compose-gateway.conf')};\n}\n`,
    );
    checkNginxConfig(nginx, dir, main);
  });
});
