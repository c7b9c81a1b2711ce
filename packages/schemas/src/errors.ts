import { z } from 'zod';

/** Machine-readable error codes of the v4 envelope. */
export const ERROR_CODES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'insufficient_scope',
  'not_found',
  'method_not_allowed',
  'precondition_failed',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'sync_token_expired',
  'payload_too_large',
  'unsupported_media_type',
  'validation_failed',
  'authorization_server_unavailable',
  'rate_limited',
  'service_unavailable',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorEnvelope = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    fields: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .describe('Per-field messages; only on validation errors.'),
  }),
});

export type ErrorEnvelope = z.output<typeof errorEnvelope>;
