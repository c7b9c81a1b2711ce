import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { MAX_IMAGE_BYTES } from '@contacts/schemas';
import busboy from 'busboy';
import { decodedBody, requestAborted } from './content-coding';
import { ApiError, validationFailed } from './errors';
import { tooManyFields } from './form';
import { discardUploads, uploadFolder } from './upload-spool';

/** Past this much unread upload after a refusal we stop draining and drop the connection. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/** A file as it arrived, waiting on disk (upload-spool.ts) until its request is answered. */
export interface UploadedFile {
  field: string;
  filename: string;
  declaredType: string;
  size: number;
  path: string;
}

/** The file's bytes, in memory: under the upload memory budget (parseBody holds a share for them). */
export function readUploadedFile(file: UploadedFile): Promise<Buffer> {
  return readFile(file.path);
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
 * The files are written to disk as they arrive; the caller deletes them (discardUploads) once its
 * request is answered. A refused body leaves none behind.
 */
export async function parseMultipart(
  req: IncomingMessage,
  options: { fileFields: readonly string[]; maxFileBytes?: number },
): Promise<MultipartBody> {
  const maxFileBytes = options.maxFileBytes ?? MAX_IMAGE_BYTES;
  const folder = await uploadFolder();
  /** Every file written for this body, whole or not: deleted if the body is refused. */
  const written: string[] = [];
  /** Each file's write, settled once its bytes are on disk (or it was given up). */
  const writes: Promise<void>[] = [];
  /** The writes under way: given up when the body is refused. */
  const open = new Set<WriteStream>();
  return new Promise<MultipartBody>((resolve, reject) => {
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
      for (const file of open) file.destroy();
      // Once every write has settled (a write still open would recreate its file).
      void Promise.allSettled(writes).then(() => discardUploads(written));
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
      const path = join(folder, randomUUID());
      written.push(path);
      const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
      open.add(file);
      let size = 0;
      const tooLarge = () => {
        stream.unpipe(file);
        stream.resume();
        file.destroy();
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
      });
      stream.on('limit', tooLarge);
      writes.push(
        new Promise<void>((settle) => {
          file.on('error', (error: NodeJS.ErrnoException) => {
            settle();
            fail(
              new ApiError(
                503,
                'service_unavailable',
                `The upload could not be kept on this server's disk (${error.code ?? 'write failed'}); send it again later. Nothing was written.`,
                { headers: { 'Retry-After': '30' } },
              ),
            );
          });
          file.on('close', () => {
            open.delete(file);
            settle();
            if (settled || stream.truncated || size > maxFileBytes) return;
            files.push({ field: name, filename: info.filename ?? '', declaredType: info.mimeType, size, path });
          });
        }),
      );
      stream.pipe(file);
    });
    parser.on('fieldsLimit', () => fail(tooManyFields()));
    parser.on('partsLimit', () => fail(new ApiError(413, 'payload_too_large', 'Too many parts.')));
    parser.on('error', (error: Error) =>
      fail(new ApiError(400, 'bad_request', `Malformed multipart body: ${error.message}`)),
    );
    parser.on('close', () => {
      if (settled) return;
      // The parser is done once the body has been read; its files' last bytes may still be on their
      // way to disk. Settled only then, so that a failed write can still refuse the body.
      void Promise.all(writes).then(() => {
        if (settled) return;
        settled = true;
        resolve({ fields, files });
      });
    });
    req.on('aborted', () => fail(requestAborted()));
    source.on('error', (error: Error) =>
      fail(error instanceof ApiError ? error : new ApiError(400, 'bad_request', 'The request body could not be read.')),
    );
    source.pipe(parser);
  });
}
