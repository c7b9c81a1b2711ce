/**
 * Whether an error means that PostgreSQL cannot be reached right now (refused or dropped
 * connections, the server shutting down or starting, the pool timing out on acquiring a
 * connection) rather than a problem with the query: the services answer 503, not 500.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300', // too_many_connections
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|Client has encountered a connection error|Connection is closed|Client was closed|timeout exceeded when trying to connect/i;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 4) return false;
  const { name, code, message, cause } = error as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    cause?: unknown;
  };
  if (name === 'KnexTimeoutError') return true;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1)))
    return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/**
 * Whether PostgreSQL undid the statement's transaction because it collided with a concurrent one
 * (deadlock_detected, serialization_failure): nothing of it was written, and the same request sent
 * again can succeed. The services answer 503 with Retry-After, not 500.
 */
export function isConcurrentWriteCollision(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}
