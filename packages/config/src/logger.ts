import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export type { Logger };

/**
 * Structured logs. Anything that could carry a credential is redacted by path, so a careless
 * `log.info({ req })` still cannot leak one.
 *
 * A developer's terminal gets one readable line per event (pino-pretty); anything else — a
 * pipe, a file, a log collector — and every production process gets JSON lines.
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
    level: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
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
      censor: '[redacted]',
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
