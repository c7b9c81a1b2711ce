import { megabytes } from '@contacts/schemas';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { decodedBody, requestAborted } from './content-coding';
import { ApiError } from './errors';

/**
 * A whole request body as text (JSON, forms, vCard), read by raw-body after its Content-Encoding
 * is undone (content-coding.ts), at most `limit` bytes once decoded, and decoded as strict UTF-8:
 * a byte sequence that is not UTF-8 is refused, never turned into U+FFFD.
 */
export async function readBodyText(
  ctx: Context,
  options: { limit: number; tooLarge?: () => ApiError },
): Promise<string> {
  return utf8Text(await readBodyBytes(ctx, options), 'The body');
}

/**
 * The body's bytes, read as readBodyText reads them but not yet decoded: for a reader that must
 * work on octets first (vCard unfolds a line folded inside a UTF-8 sequence), then utf8Text.
 */
export async function readBodyBytes(
  ctx: Context,
  options: { limit: number; tooLarge?: () => ApiError },
): Promise<Buffer> {
  const tooLarge =
    options.tooLarge ??
    (() => new ApiError(413, 'payload_too_large', `The body must not be larger than ${megabytes(options.limit)}.`));
  const stream = decodedBody(ctx.req);
  let bytes: Buffer;
  try {
    bytes = await getRawBody(stream, {
      limit: options.limit,
      // Only the request's own bytes have a known length (a larger one is refused before reading).
      length: stream === ctx.req ? ctx.get('content-length') || null : null,
    });
  } catch (error) {
    throw readError(error, tooLarge);
  }
  return bytes;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** `bytes` as UTF-8 text (a leading byte-order mark dropped); anything else → 400. */
export function utf8Text(bytes: Uint8Array, what: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ApiError(400, 'bad_request', `${what} is not valid UTF-8.`);
  }
}

/** Bodies are UTF-8: a media type declaring another charset is refused (415), not misread. */
export function requireUtf8Charset(ctx: Context): void {
  const charset = ctx.request.charset.toLowerCase();
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError(415, 'unsupported_media_type', `Send the body as UTF-8, not ${charset}.`);
  }
}

/** raw-body's failures (see its README, "Errors") as the API's answers. */
function readError(error: unknown, tooLarge: () => ApiError): unknown {
  if (error instanceof ApiError) return error;
  switch ((error as { type?: unknown } | null)?.type) {
    case 'entity.too.large':
      return tooLarge();
    case 'request.aborted':
    // The request stream had already failed (the client's framing was broken, or it hung up)
    // before its body was read: the client's doing, never a 500.
    case 'stream.not.readable':
      return requestAborted();
    case 'request.size.invalid':
      return new ApiError(400, 'bad_request', 'The body is not as long as its Content-Length says.');
    default:
      return error;
  }
}
