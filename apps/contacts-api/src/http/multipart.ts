import type { IncomingMessage } from 'node:http';
import { MAX_IMAGE_BYTES } from '@contacts/schemas';
import busboy from 'busboy';
import { ApiError } from './errors';

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

/**
 * Streams a multipart/form-data body through busboy. Files named in `fileFields` are collected
 * (at most `maxFileBytes` each: one byte more and the request is refused with 413 at once,
 * before the rest arrives); other files are discarded unread. Broken bodies → 400.
 */
export function parseMultipart(
  req: IncomingMessage,
  options: { fileFields: readonly string[]; maxFileBytes?: number },
): Promise<MultipartBody> {
  const maxFileBytes = options.maxFileBytes ?? MAX_IMAGE_BYTES;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // busboy's limit fires on reaching its value; one byte of margin makes exactly maxFileBytes pass.
        limits: {
          fileSize: maxFileBytes + 1,
          files: options.fileFields.length,
          fields: 100,
          fieldSize: 64 * 1024,
          parts: 200,
        },
      });
    } catch (error) {
      reject(new ApiError(400, 'bad_request', `Malformed multipart body: ${(error as Error).message}`));
      return;
    }
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let settled = false;

    const fail = (error: ApiError) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
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
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // A body that ends inside a file destroys the file's stream with busboy's error: that error
      // is reported once, by the parser's 'error' below; unheard here it would crash the process.
      stream.on('error', () => {});
      if (!options.fileFields.includes(name)) {
        stream.resume();
        return;
      }
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
    parser.on('filesLimit', () => fail(new ApiError(422, 'validation_failed', 'Send one image at most.')));
    parser.on('fieldsLimit', () => fail(new ApiError(413, 'payload_too_large', 'Too many fields.')));
    parser.on('partsLimit', () => fail(new ApiError(413, 'payload_too_large', 'Too many parts.')));
    parser.on('error', (error: Error) =>
      fail(new ApiError(400, 'bad_request', `Malformed multipart body: ${error.message}`)),
    );
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve({ fields, files });
    });
    req.on('aborted', () => fail(new ApiError(400, 'bad_request', 'The request was aborted.')));
    req.pipe(parser);
  });
}
