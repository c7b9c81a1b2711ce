/** Small, strict readers for environment variables: a bad value stops the process with a clear message. */
export class ConfigError extends Error {}

/**
 * A valid setting that this machine cannot honour (a port another program holds, a folder that
 * cannot be written): reported like a malformed one, naming the setting and the remedy. It is
 * the machine's doing, not a typo, so the CLI exits 1 for it rather than 2.
 */
export class EnvironmentError extends ConfigError {}

/** NODE_ENV, read strictly: what decides whether the production checks apply. */
export type NodeEnvironment = 'production' | 'development' | 'test';
const NODE_ENVIRONMENTS: readonly NodeEnvironment[] = ['production', 'development', 'test'];

/**
 * NODE_ENV: `production`, `development` or `test`; unset (or empty) is development. Anything else
 * is refused: a typo such as `prod` would otherwise turn the production checks off without a word
 * (required secrets generated per process, an embedded database in place of a missing URL).
 */
export function nodeEnvironmentFrom(env: NodeJS.ProcessEnv): NodeEnvironment {
  const raw = env.NODE_ENV;
  if (raw === undefined || raw === '') return 'development';
  if ((NODE_ENVIRONMENTS as readonly string[]).includes(raw)) return raw as NodeEnvironment;
  throw new ConfigError(
    `NODE_ENV must be one of ${NODE_ENVIRONMENTS.join(', ')} (or unset: development), got "${raw}"`,
  );
}

export function integerFrom(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: Number() also takes "1e3", "0x10", "12.0" and "" (which would be 0),
  // none of which anyone writing a port or a number of seconds meant.
  const digits = /^\s*-?\d+\s*$/.test(raw);
  const value = digits ? Number(raw) : Number.NaN;
  // Digits beyond what a number holds exactly: too large (or too small), not malformed.
  if (digits && !Number.isSafeInteger(value) && value > 0)
    throw new ConfigError(`${name} must be an integer <= ${max}, got "${raw}"`);
  if (!Number.isSafeInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  if (value > max) throw new ConfigError(`${name} must be an integer <= ${max}, got "${raw}"`);
  return value;
}

/**
 * The longest lifetime a setting may give anything (tokens, grants, sync tokens, rate-limit
 * windows): ten years. Every expiry computed from it stays within what JavaScript dates and
 * PostgreSQL timestamps and intervals hold; a larger value started fine and then failed requests.
 */
export const LONGEST_LIFETIME_SECONDS = 10 * 366 * 86_400;

/** The longest delay a timer can wait (setTimeout takes at most 2^31 - 1 ms; longer fires at once). */
export const LONGEST_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A TCP port: 1 to 65535 (checked here, so that 70000 is not blamed on a URL built from it). */
export function portFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return integerFrom(env, name, fallback, 1, 65_535);
}

/**
 * PUBLIC_URL: the one address clients use (the gateway's), which the auth server names as its
 * issuer and both services put in links. Required in production: without it each replica would
 * name itself `http://localhost:<its PORT>`, so replicas behind one gateway disagree on the issuer
 * (tokens, discovery and redirects then depend on which replica answered). In development it
 * defaults to that address.
 */
export function publicUrlFrom(env: NodeJS.ProcessEnv, port: number): string {
  if (!env.PUBLIC_URL && nodeEnvironmentFrom(env) === 'production') {
    throw new ConfigError(
      'PUBLIC_URL must be set in production: the address clients use (e.g. https://contacts.example.com), the same for every replica; without it each replica names itself by its own port',
    );
  }
  return urlFrom(env, 'PUBLIC_URL', `http://localhost:${port}`);
}

/**
 * The origin of a service, http(s), without a trailing slash ("localhost:3000" parses as a URL of
 * scheme "localhost:", and is refused). Both services answer at the root of their URL, and the
 * issuer it becomes may carry no query or fragment (RFC 8414 §2), so anything after the host and
 * port is refused here rather than failing at start (a stack trace) or on every link.
 */
export function urlFrom(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  const url = URL.parse(raw);
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http or https URL, got "${raw}"`);
  }
  if (url.username || url.password) {
    throw new ConfigError(`${name} must not contain a user name or password, got "${url.protocol}//…@${url.host}"`);
  }
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(raw)) {
    throw new ConfigError(
      `${name} must be an origin only (scheme, host and port, e.g. https://contacts.example.com): the services answer at its root; got "${raw}"`,
    );
  }
  return url.origin;
}

/**
 * A URL of one of `schemes` (e.g. ['postgres:', 'postgresql:']), unchanged; undefined when unset.
 * `form` shows what is expected. The refusal repeats the value with its password masked: such
 * URLs carry credentials, and the message ends up on terminals and in logs.
 */
export function serviceUrlFrom(
  env: NodeJS.ProcessEnv,
  name: string,
  schemes: readonly string[],
  form: string,
): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  // URL parsing trims and the driver does not: " postgres://…" failed as an unknown host "base".
  if (raw !== raw.trim()) {
    throw new ConfigError(
      `${name} has a space at its start or end (${form}), got "${withoutPassword(raw)}": remove it (a copy-paste left it there)`,
    );
  }
  const port = portOf(raw);
  if (port !== undefined && (port < 1 || port > 65535)) {
    throw new ConfigError(`${name} must name a port from 1 to 65535 (${form}), got "${withoutPassword(raw)}"`);
  }
  const parsed = URL.parse(raw);
  // `scheme:/db` names no server at all (`scheme:///db`, PostgreSQL's local socket, does).
  if (parsed && schemes.includes(parsed.protocol) && !raw.slice(parsed.protocol.length).startsWith('//')) {
    throw new ConfigError(
      `${name} must name its server after ${parsed.protocol}// (${form}), got "${withoutPassword(raw)}"`,
    );
  }
  if (parsed && schemes.includes(parsed.protocol)) return raw;
  const names = schemes.map((scheme) => `${scheme}//`).join(' or ');
  // The right scheme, yet no URL: almost always a password holding a character URLs reserve.
  const scheme = /^[a-z][a-z\d+.-]*:(?=\/\/)/i.exec(raw)?.[0]?.toLowerCase();
  if (!parsed && scheme !== undefined && schemes.includes(scheme)) {
    throw new ConfigError(
      `${name} is not a valid URL (${form}), got "${withoutPassword(raw)}": a user name or password holding ` +
        '/ : @ # ? or % must be percent-encoded (/ as %2F, : as %3A, @ as %40, # as %23, ? as %3F, % as %25)',
    );
  }
  throw new ConfigError(`${name} must be a ${names} URL (${form}), got "${withoutPassword(raw)}"`);
}

/** The port written in a URL's authority (after its last `@`, so a password cannot pose as one). */
function portOf(raw: string): number | undefined {
  const start = raw.indexOf('//');
  if (start < 0) return undefined;
  const authority = raw.slice(Math.max(start + 2, raw.lastIndexOf('@') + 1));
  const digits = /^(?:\[[^\]]*\]|[^/?#:[]*):(\d+)(?=[/?#]|$)/.exec(authority)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

/**
 * `scheme://user:secret@host` → `scheme://user:***@host`, also when the rest does not parse and
 * when the password itself holds `/`, `:` or `@` (everything up to the last `@` is masked).
 */
export function withoutPassword(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at < 0) return raw;
  const slashes = raw.lastIndexOf('//', at);
  const start = slashes < 0 ? 0 : slashes + 2;
  const colon = raw.indexOf(':', start);
  return colon < 0 || colon > at ? raw : `${raw.slice(0, colon)}:***${raw.slice(at)}`;
}

export function booleanFrom(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * For a service's main module: a configuration that cannot be read stops the process with one
 * line naming the variable and the form it expects (exit code 1), never a stack trace. Any other
 * error is rethrown unchanged.
 */
export function refuseToStart(service: string): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${service} cannot start: ${error.message}\n`);
    process.exit(1);
  };
}
