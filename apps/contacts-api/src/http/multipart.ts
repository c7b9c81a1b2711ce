import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { MAX_IMAGE_BYTES } from '@contacts/schemas';
import busboy from 'busboy';
import { decodedBody, requestAborted } from './content-coding';
import { ApiError, validationFailed } from './errors';
import { tooManyFields } from './form';

/** Past this much unread upload after a refusal we stop draining and drop the connection. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

export interface UploadedFile {
  field: string;
  filename: string;
  declaredType: string;
  bytes: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/** The most text fields, and parts, a multipart body may hold (more → 413). */
export const MAX_MULTIPART_FIELDS = 100;
export const MAX_MULTIPART_PARTS = 200;
export const MAX_MULTIPART_FIELD_BYTES = 64 * 1024;

/**
 * Streams a multipart/form-data body through busboy, its Content-Encoding undone first (as every
 * body: content-coding.ts). Files named in `fileFields` are collected, one per field (a second one
 * → 422 on that field), at most `maxFileBytes` each: one byte more and the request is refused with
 * 413 at once, before the rest arrives. Other files are discarded unread, unless the request takes
 * no file at all (422). Text fields must be UTF-8 (see the 'field' handler). Broken bodies → 400.
 */
export function parseMultipart(
  req: IncomingMessage,
  options: { fileFields: readonly string[]; maxFileBytes?: number },
): Promise<MultipartBody> {
  const maxFileBytes = options.maxFileBytes ?? MAX_IMAGE_BYTES;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    let source: Readable;
    try {
      parser = busboy({
        headers: req.headers,
        // busboy's limit fires on reaching its value; one byte of margin makes exactly maxFileBytes pass.
        // No `files` limit: the 'file' handler says which field had one file too many.
        limits: {
          fileSize: maxFileBytes + 1,
          fields: MAX_MULTIPART_FIELDS,
          fieldSize: MAX_MULTIPART_FIELD_BYTES,
          parts: MAX_MULTIPART_PARTS,
        },
      });
      source = decodedBody(req);
    } catch (error) {
      reject(
        error instanceof ApiError
          ? error
          : new ApiError(400, 'bad_request', `Malformed multipart body: ${(error as Error).message}`),
      );
      return;
    }
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    /** The file fields a file has come for (it reaches `files` once it has arrived whole). */
    const fileFieldsSeen = new Set<string>();
    let settled = false;

    const fail = (error: ApiError) => {
      if (settled) return;
      settled = true;
      source.unpipe(parser);
      if (source !== req) {
        // Stop decoding; what is left of the request is drained as it was sent.
        req.unpipe();
        source.destroy();
      }
      parser.removeAllListeners();
      parser.on('error', () => {});
      // Let the client finish sending so that it reads our answer, but keep nothing of it.
      let drained = 0;
      req.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > MAX_DRAIN_BYTES) req.destroy();
      });
      req.resume();
      reject(error);
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        fail(new ApiError(413, 'payload_too_large', `The field ${name} is too long.`));
        return;
      }
      // busboy decodes a text part as UTF-8, or as the charset the part declares (that text is
      // converted, as the client labelled it), and hands no value for a charset it does not know.
      if (typeof value !== 'string') {
        fail(new ApiError(415, 'unsupported_media_type', `The field ${name} declares a charset this API cannot read.`));
        return;
      }
      // Bytes that are not UTF-8 come out as U+FFFD, which would be stored altered. Their raw bytes
      // are not at hand (busboy does not say which charset it used), so a U+FFFD actually sent in a
      // multipart field is refused too.
      if (value.includes('\uFFFD')) {
        fail(new ApiError(400, 'bad_request', `The field ${name} is not valid UTF-8 text.`));
        return;
      }
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // A body that ends inside a file destroys the file's stream with busboy's error: that error
      // is reported once, by the parser's 'error' below; unheard here it would crash the process.
      stream.on('error', () => {});
      if (options.fileFields.length === 0) {
        stream.resume();
        fail(validationFailed({ [name]: ['This request takes no files.'] }));
        return;
      }
      if (!options.fileFields.includes(name)) {
        stream.resume();
        return;
      }
      if (fileFieldsSeen.has(name)) {
        stream.resume();
        fail(validationFailed({ [name]: [`Send one ${name} at most.`] }));
        return;
      }
      fileFieldsSeen.add(name);
      const chunks: Buffer[] = [];
      let size = 0;
      const tooLarge = () => {
        chunks.length = 0;
        stream.resume();
        fail(
          new ApiError(
            413,
            'payload_too_large',
            `The ${name} must not be larger than ${maxFileBytes / 1024 / 1024} MB.`,
          ),
        );
      };
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxFileBytes) tooLarge();
        else if (!settled) chunks.push(chunk);
      });
      stream.on('limit', tooLarge);
      stream.on('close', () => {
        if (settled || stream.truncated) return;
        files.push({
          field: name,
          filename: info.filename ?? '',
          declaredType: info.mimeType,
          bytes: Buffer.concat(chunks),
        });
      });
    });
    parser.on('fieldsLimit', () => fail(tooManyFields()));
    parser.on('partsLimit', () => fail(new ApiError(413, 'payload_too_large', 'Too many parts.')));
    parser.on('error', (error: Error) =>
      fail(new ApiError(400, 'bad_request', `Malformed multipart body: ${error.message}`)),
    );
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve({ fields, files });
    });
    req.on('aborted', () => fail(requestAborted()));
    source.on('error', (error: Error) =>
      fail(error instanceof ApiError ? error : new ApiError(400, 'bad_request', 'The request body could not be read.')),
    );
    source.pipe(parser);
  });
}
