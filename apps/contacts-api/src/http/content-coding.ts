import type { IncomingMessage } from 'node:http';
import { Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ApiError } from './errors';

/**
 * The request body with its Content-Encoding (RFC 9110 §8.4) undone, the same for every body the
 * API reads (JSON, forms, multipart, vCard): the limits and the UTF-8 check apply to what it
 * encodes. One coding at most, of those HTTP clients send.
 */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** What a 415 for an unknown coding names in Accept-Encoding (RFC 9110 §12.5.3). */
export const READABLE_CODINGS = 'gzip, deflate, br';

export const bodyDoesNotMatchEncoding = () =>
  new ApiError(400, 'bad_request', 'The body does not match its Content-Encoding.');
export const requestAborted = () => new ApiError(400, 'bad_request', 'The request was aborted.');

/**
 * The bytes the body encodes: the request itself without a coding, else a stream that fails with
 * bodyDoesNotMatchEncoding() when the bytes are not what the coding says (zlib's "incorrect
 * header check" was a 500). An unknown coding, or several, → 415 before anything is read.
 */
export function decodedBody(req: IncomingMessage): Readable {
  const codings = (req.headers['content-encoding'] ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return req;
  const decoder = codings.length === 1 ? DECODERS[codings[0]!] : undefined;
  if (!decoder) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Send the body without Content-Encoding, or encoded with one of ${READABLE_CODINGS}.`,
      { headers: { 'Accept-Encoding': READABLE_CODINGS } },
    );
  }
  const decoding = decoder();
  // pipe() leaves the request alone when decoding stops, so that a refused body can be drained.
  req.pipe(decoding);
  req.once('aborted', () => decoding.destroy(requestAborted()));
  return Readable.from(decoded(decoding), { objectMode: false });
}

async function* decoded(decoding: Transform): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of decoding) yield chunk as Buffer;
  } catch (error) {
    throw error instanceof ApiError ? error : bodyDoesNotMatchEncoding();
  }
}
