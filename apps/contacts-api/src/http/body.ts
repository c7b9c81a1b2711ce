import { hasRequestBody, requestBodyAbandoned } from '@contacts/config';
import { scan as refuseProtoKeys } from '@hapi/bourne';
import type { Context, Middleware } from 'koa';
import { readBodyText, requireUtf8Charset } from './body-text';
import { ApiError } from './errors';
import { parseForm } from './form';
import { type MultipartBody, parseMultipart, type UploadedFile } from './multipart';
import { UPLOAD_MEMORY_PER_BYTE, uploadMemory } from './upload-memory';
import { discardUploads } from './upload-spool';

/**
 * The request body, whatever its encoding: JSON, a URL-encoded form, or multipart/form-data
 * (required when an image is sent), kept on `ctx.state.body` for bodyOf(): the fields and the
 * uploaded files. Every one is read the same way: Content-Encoding undone (content-coding.ts),
 * strict UTF-8, limits answered with 413. Malformed bodies → 400; other content types → 415.
 */
export interface ParsedBody {
  fields: unknown;
  files: UploadedFile[];
}

/** The largest JSON or form body, once decoded. */
export const MAX_JSON_BYTES = 1024 * 1024;

/** The media types a body may have, in the order a refusal names them. */
export const BODY_MEDIA_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
] as const;
export type BodyMediaType = (typeof BODY_MEDIA_TYPES)[number];

/**
 * `mediaTypes`: the ones the route reads (all by default). A route whose body a form cannot
 * express (DELETE /v4/contacts: its ids are JSON numbers) reads JSON alone, so that another type
 * is told what to send (415) rather than read and refused field by field.
 */
export function parseBody(
  options: { fileFields?: readonly string[]; mediaTypes?: readonly BodyMediaType[] } = {},
): Middleware {
  const fileFields = options.fileFields ?? [];
  const mediaTypes = options.mediaTypes ?? BODY_MEDIA_TYPES;
  return async (ctx, next) => {
    const body = await read(ctx, fileFields, mediaTypes);
    try {
      // The files' share of memory is taken before the route reads them, and kept until it has answered.
      const fileBytes = body.files.reduce((sum, file) => sum + file.size, 0);
      const release = fileBytes > 0 ? await uploadMemory.reserve(fileBytes * UPLOAD_MEMORY_PER_BYTE) : undefined;
      try {
        ctx.state.body = body;
        await next();
      } finally {
        release?.();
      }
    } finally {
      await discardUploads(body.files.map((file) => file.path));
    }
  };
}

/** The body parseBody() read; empty when the route has no body parser. */
export function bodyOf(ctx: Context): ParsedBody {
  return (ctx.state.body as ParsedBody | undefined) ?? { fields: {}, files: [] };
}

async function read(
  ctx: Context,
  fileFields: readonly string[],
  mediaTypes: readonly BodyMediaType[],
): Promise<ParsedBody> {
  if (!hasRequestBody(ctx)) return { fields: {}, files: [] };
  if (requestBodyAbandoned(ctx)) {
    throw new ApiError(400, 'bad_request', 'The request was closed before its body was read.');
  }
  const reads = (type: BodyMediaType) => mediaTypes.includes(type);
  if (reads('multipart/form-data') && ctx.is('multipart/form-data')) {
    const parsed: MultipartBody = await parseMultipart(ctx.req, { fileFields });
    return { fields: parsed.fields, files: parsed.files };
  }
  if (reads('application/json') && ctx.is('application/json', '+json')) {
    requireUtf8Charset(ctx);
    return { fields: parseJson(await readBodyText(ctx, { limit: MAX_JSON_BYTES })), files: [] };
  }
  if (reads('application/x-www-form-urlencoded') && ctx.is('application/x-www-form-urlencoded')) {
    requireUtf8Charset(ctx);
    return { fields: parseForm(await readBodyText(ctx, { limit: MAX_JSON_BYTES })), files: [] };
  }
  throw new ApiError(415, 'unsupported_media_type', `Send ${namesOf(mediaTypes)}.`);
}

/** `application/json, application/x-www-form-urlencoded or multipart/form-data`: what a refusal asks for. */
function namesOf(mediaTypes: readonly BodyMediaType[]): string {
  return mediaTypes.length > 1 ? `${mediaTypes.slice(0, -1).join(', ')} or ${mediaTypes.at(-1)}` : mediaTypes.join('');
}

/** JSON text opening with an object (nothing else is a body of this API), whitespace aside. */
const OBJECT = /^[ \t\n\r]*\{/;

/**
 * A JSON body: an object; empty text is an empty object. Anything else (an array, a string,
 * null) is no body of any route here: 400, as malformed JSON is, rather than a 422 whose field
 * key could only name the body as a whole. A `__proto__` key is refused (bourne), so that no
 * later merge of the fields can reach Object.prototype.
 */
function parseJson(text: string): unknown {
  if (text === '') return {};
  if (!OBJECT.test(text)) throw new ApiError(400, 'bad_request', 'The body is not a JSON object.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'bad_request', 'The body is not valid JSON.');
  }
  try {
    refuseProtoKeys(parsed, { protoAction: 'error' });
  } catch {
    throw new ApiError(400, 'bad_request', 'A JSON key named __proto__ is refused.');
  }
  return parsed;
}
