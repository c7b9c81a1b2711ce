import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { bodyOf } from './body';
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
 * What identifies a request beside its key: method, path and a hash of the body as parsed (the
 * fields, keys sorted, and each file's bytes), so that a retry encoded differently — another
 * multipart boundary, other JSON spacing or key order — is still the same request.
 */
export function requestFingerprint(ctx: Context): string {
  const { fields, files } = bodyOf(ctx);
  const content = JSON.stringify([
    canonical(fields),
    files.map((file) => [file.field, createHash('sha256').update(file.bytes).digest('base64url')]),
  ]);
  return createHash('sha256').update(`${ctx.method} ${ctx.path}\n${content}`).digest('base64url');
}

/** A JSON value with every object's keys in order, for a stable serialisation. */
function canonical(value: unknown): unknown {
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
