import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { ConfigError } from './env';

export type { Logger };

/** pino's levels, as .env.example lists them (pino itself knows them in lower case only). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL: `info` by default, `silent` under NODE_ENV=test. */
export function logLevelFrom(env: NodeJS.ProcessEnv): LogLevel {
  const raw = env.LOG_LEVEL;
  if (raw === undefined || raw === '') return env.NODE_ENV === 'test' ? 'silent' : 'info';
  const level = LOG_LEVELS.find((known) => known === raw);
  if (!level) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${raw}"`);
  return level;
}

const REDACTED = '[redacted]';

/**
 * `*.code` is an authorization code in OAuth parameters, and an error's code everywhere else
 * (`err.code`: ECONNREFUSED, PostgreSQL's 57P01, ERR_…), which an operator needs. Error codes are
 * short upper-case identifiers or numbers; an authorization code is 43 characters of base64url.
 */
function censorUnlessErrorCode(value: unknown, path: string[]): unknown {
  const isErrorCode =
    path.at(-1) === 'code' &&
    (typeof value === 'number' || (typeof value === 'string' && /^[A-Z0-9_]{1,32}$/.test(value)));
  return isErrorCode ? value : REDACTED;
}

/**
 * Structured logs. Anything that could carry a credential is redacted by path, so a careless
 * `log.info({ req })` still cannot leak one.
 *
 * A developer's terminal gets one readable line per event (pino-pretty); anything else — a
 * pipe, a file, a log collector — and every production process gets JSON lines.
 *
 * Throws a ConfigError for a LOG_LEVEL pino does not know (pino's own error is a stack trace).
 */
export function createLogger(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  destination?: DestinationStream,
  /** Whether the lines end up on a person's terminal; by default, whether stdout is one. */
  isTerminal: boolean = destination === undefined && process.stdout.isTTY === true,
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: logLevelFrom(env),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        // [security] DPoP proofs (RFC 9449) and leaked-token reports
        'req.headers.dpop',
        '*.tokens',
        'res.headers["set-cookie"]',
        '*.password',
        '*.client_secret',
        '*.access_token',
        '*.refresh_token',
        '*.token',
        '*.code',
      ],
      censor: censorUnlessErrorCode,
    },
  };
  if (wantsPrettyLogs(env, isTerminal)) {
    // A synchronous stream rather than a transport: no worker thread, so it also works in
    // the bundled services.
    const pretty = pinoPretty({
      destination: destination ?? 1,
      sync: true,
      singleLine: true,
      colorize: destination === undefined,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
    });
    return pino(options, pretty);
  }
  return destination ? pino(options, destination) : pino(options);
}

/** Pretty lines only for a person at a terminal, never in production. */
export function wantsPrettyLogs(env: NodeJS.ProcessEnv, isTerminal: boolean): boolean {
  return isTerminal && env.NODE_ENV !== 'production';
}
