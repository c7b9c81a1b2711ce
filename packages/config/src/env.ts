/** Small, strict readers for environment variables: a bad value stops the process with a clear message. */
export class ConfigError extends Error {}

export function integerFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/** An http(s) URL without a trailing slash ("localhost:3000" parses as a URL of scheme "localhost:", and is refused). */
export function urlFrom(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  const url = URL.parse(raw);
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http or https URL, got "${raw}"`);
  }
  return url.toString().replace(/\/$/, '');
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
