import { hasRequestBody, requestBodyAbandoned } from '@contacts/config';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { ApiError } from './errors';
import { type MultipartBody, parseMultipart, type UploadedFile } from './multipart';

/**
 * The request body, whatever its encoding: JSON, a URL-encoded form, or multipart/form-data
 * (required when an image is sent), kept on `ctx.state.body` for bodyOf(): the fields and the
 * uploaded files. Malformed bodies → 400; other content types → 415.
 */
export interface ParsedBody {
  fields: unknown;
  files: UploadedFile[];
}

const jsonAndForm = koaBody({
  multipart: false,
  text: false,
  jsonLimit: '1mb',
  formLimit: '1mb',
  parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
});

export function parseBody(options: { fileFields?: readonly string[] } = {}): Middleware {
  const fileFields = options.fileFields ?? [];
  return async (ctx, next) => {
    const body = await read(ctx, fileFields);
    ctx.state.body = body;
    await next();
  };
}

/** The body parseBody() read; empty when the route has no body parser. */
export function bodyOf(ctx: Context): ParsedBody {
  return (ctx.state.body as ParsedBody | undefined) ?? { fields: {}, files: [] };
}

async function read(ctx: Context, fileFields: readonly string[]): Promise<ParsedBody> {
  if (!hasRequestBody(ctx)) return { fields: {}, files: [] };
  if (requestBodyAbandoned(ctx)) {
    throw new ApiError(400, 'bad_request', 'The request was closed before its body was read.');
  }
  if (ctx.is('multipart/form-data')) {
    const parsed: MultipartBody = await parseMultipart(ctx.req, { fileFields });
    return { fields: parsed.fields, files: parsed.files };
  }
  if (ctx.is('application/json', '+json', 'application/x-www-form-urlencoded')) {
    await jsonAndForm(ctx, async () => {});
    return { fields: ctx.request.body ?? {}, files: [] };
  }
  throw new ApiError(
    415,
    'unsupported_media_type',
    'Send JSON, application/x-www-form-urlencoded or multipart/form-data.',
  );
}
