import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Anything that could carry a credential is redacted by path, so a
 * careless `log.info({ req })` still cannot leak one.
 */
export function createLogger(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  destination?: DestinationStream,
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
  return destination ? pino(options, destination) : pino(options);
}
