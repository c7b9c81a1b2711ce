import { megabytes } from '@contacts/schemas';
import { MAX_JSON_BYTES } from './body';
import { READABLE_CODINGS } from './content-coding';
import { MAX_FORM_FIELDS } from './form';
import { MAX_MULTIPART_FIELD_BYTES, MAX_MULTIPART_FIELDS, MAX_MULTIPART_PARTS } from './multipart';

/**
 * Answers that come from what stands in front of a route's handler rather than from the handler:
 * reading a body (body.ts and the modules it uses) and the rate limit (rate-limit.ts). Described
 * once here, from the limits the code enforces; the OpenAPI document adds them, in the version's
 * error shape, to every operation that has a body or sits behind the rate limit.
 */
type JsonObject = Record<string, unknown>;

export interface SharedAnswer {
  description: string;
  headers?: Record<string, JsonObject>;
}

const FORM_TYPES = ['application/json', 'application/x-www-form-urlencoded'];

/** What reading a body of these media types (the operation's documented ones) may answer. */
export function bodyAnswers(mediaTypes: readonly string[]): Record<number, SharedAnswer> {
  const limits = [
    ...(mediaTypes.some((type) => FORM_TYPES.includes(type))
      ? [
          `A JSON or form body larger than ${megabytes(MAX_JSON_BYTES)} once decoded, or a form of more than ${MAX_FORM_FIELDS} fields.`,
        ]
      : []),
    ...(mediaTypes.includes('multipart/form-data')
      ? [
          `A multipart body of more than ${MAX_MULTIPART_FIELDS} fields or ${MAX_MULTIPART_PARTS} parts, or a field over ${MAX_MULTIPART_FIELD_BYTES / 1024} KB.`,
        ]
      : []),
  ];
  const answers: Record<number, SharedAnswer> = {
    400: {
      description:
        'A body that is malformed for its Content-Type, is not UTF-8 (JSON, forms, multipart text fields, vCard), or does not match its Content-Encoding.',
    },
    415: {
      description: `A Content-Type other than ${mediaTypes.join(', ')}; a charset other than UTF-8; or a Content-Encoding other than ${READABLE_CODINGS} (Accept-Encoding then names those).`,
      headers: {
        'Accept-Encoding': { schema: { type: 'string' }, description: `With an unknown coding: ${READABLE_CODINGS}.` },
      },
    },
  };
  if (limits.length > 0) answers[413] = { description: limits.join(' ') };
  return answers;
}

const seconds = { schema: { type: 'integer', minimum: 0 } };

/**
 * The rate limits' refusal: per token (API_RATE_LIMIT requests per API_RATE_LIMIT_WINDOW seconds)
 * and invalid tokens per caller address (API_INVALID_TOKEN_LIMIT, http/invalid-token-limit.ts).
 */
export const RATE_LIMITED: SharedAnswer = {
  description:
    'Too many requests with this token in the window, or too many invalid tokens from this address (`rate_limited`); retry after Retry-After seconds.',
  headers: {
    'Retry-After': { ...seconds, description: 'Seconds until the window resets.' },
    'RateLimit-Limit': { ...seconds, description: 'Requests allowed per window.' },
    'RateLimit-Remaining': { ...seconds, description: 'Requests left in this window (0).' },
    'RateLimit-Reset': { ...seconds, description: 'Seconds until the window resets.' },
  },
};

/**
 * The per-token limit's state, on every answer a route gives once the limit let the request in
 * (its successes and 304s, where a client paces itself by them): the IETF draft's RateLimit fields.
 */
export const RATE_LIMIT_STATE_HEADERS: Record<string, JsonObject> = {
  'RateLimit-Limit': { ...seconds, description: 'Requests allowed per window with this token.' },
  'RateLimit-Remaining': { ...seconds, description: 'Requests left in this window with this token.' },
  'RateLimit-Reset': { ...seconds, description: 'Seconds until the window resets.' },
};

/** Every answer of the service carries the request's id (packages/config request-context.ts). */
export const REQUEST_ID_HEADERS: Record<string, JsonObject> = {
  'X-Request-Id': {
    schema: { type: 'string' },
    description:
      "The request's id: the X-Request-Id sent, when it is 1 to 128 of `A-Za-z0-9._:-`, else a new one. It is in the service's log line for the request: quote it when reporting a problem.",
  },
};
