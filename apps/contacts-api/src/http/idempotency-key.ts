import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { ApiError } from './errors';

/**
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): reading and
 * checking it, the fingerprint that tells a retry from another request, and the answers that
 * refuse a request because of its key. The transaction that honours it is in
 * domain/idempotent-writes.ts.
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Sent on a replayed answer, as Stripe does (the draft names no such header). */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const invalidKey = (why: string) =>
  new ApiError(
    400,
    'bad_request',
    `Invalid Idempotency-Key: ${why} A key is 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, bare or as a quoted string.`,
  );

/**
 * The request's key, or undefined when it sends none: the usual request pays one header lookup.
 * Two spellings name the same key: the draft's Structured Field String (`"abc"`, RFC 8941 §3.3.3,
 * with `\"` and `\\` escapes) and the bare value most clients send (`abc`, as Stripe takes it).
 */
export function readIdempotencyKey(ctx: Context): string | undefined {
  if (ctx.request.headers['idempotency-key'] === undefined) return undefined;
  // Node joins repeated fields with ", ", which a key may contain: look at the fields themselves.
  const fields = ctx.req.headersDistinct['idempotency-key'] ?? [];
  if (fields.length > 1) throw invalidKey('the header was sent more than once.');
  const value = fields[0] ?? '';
  const key = value.startsWith('"') ? unquote(value) : value;
  if (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw invalidKey(`it has ${key.length} characters.`);
  if (!/^[\x20-\x7e]+$/.test(key)) throw invalidKey('it holds a character that is not printable ASCII.');
  return key;
}

/** An sf-string's value: a quoted string whose only escapes are \" and \\, nothing after it. */
function unquote(value: string): string {
  let key = '';
  for (let index = 1; index < value.length; index += 1) {
    const character = value[index] as string;
    if (character === '\\') {
      const escaped = value[index + 1];
      if (escaped !== '"' && escaped !== '\\') throw invalidKey('a quoted key may escape only " and \\.');
      key += escaped;
      index += 1;
    } else if (character === '"') {
      if (index !== value.length - 1) throw invalidKey('something follows the closing quote.');
      return key;
    } else {
      key += character;
    }
  }
  throw invalidKey('the quoted string is not closed.');
}

/**
 * Names the fingerprint's recipe, and is hashed with it. Records written before it (a hash of the
 * raw body fields) can then never equal a fingerprint made now: a retry of such a request within
 * the key's lifetime is refused (422), never answered with another request's result.
 */
const FINGERPRINT_FORMAT = 'parsed-input/2';

/**
 * What identifies a request beside its key: method, path and a hash of its input as validated
 * (`input`: what the route goes on to write, bytes standing for themselves), every object's keys
 * sorted. A retry that parses to the same input is the same request: other JSON spacing or key
 * order, another multipart boundary, unknown fields (ignored), padding the validation trims, an
 * id sent as a digit string.
 */
export function requestFingerprint(ctx: Context, input: unknown): string {
  const content = JSON.stringify(canonical(input));
  return createHash('sha256')
    .update(`${FINGERPRINT_FORMAT}\n${ctx.method} ${ctx.path}\n${content}`)
    .digest('base64url');
}

/**
 * A create's fields without those that are null: a field sent null or empty (which validation
 * makes null) creates what an absent one does, a contact without that value. Not for an update,
 * where null clears the stored value and absent keeps it.
 */
export function asCreated<T extends object>(fields: T): WithoutNulls<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) as WithoutNulls<T>;
}

type WithoutNulls<T> = { [K in keyof T]: Exclude<T[K], null> };

/** A value with every object's keys in order (and bytes as their hash), for a stable serialisation. */
function canonical(value: unknown): unknown {
  if (value instanceof Uint8Array) return `sha256:${createHash('sha256').update(value).digest('base64url')}`;
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/** The answer to a request its key refuses: its first request still running (409), or another request (422). */
export function keyRefusal(kind: 'in_progress' | 'key_reused'): ApiError {
  return kind === 'in_progress'
    ? new ApiError(
        409,
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed; send it again in a moment.',
        { headers: { 'Retry-After': '1' } },
      )
    : new ApiError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request (method, path or body); use a new key for a new request.',
      );
}
