import { IDEMPOTENCY_KEY_TTL_SECONDS, MAX_ROW_ID } from '@contacts/db';
import { errorEnvelope, MAX_IMAGE_BYTES, megabytes, messageV3, validationErrorV3 } from '@contacts/schemas';
import { z } from 'zod';
import type { ResponseContract } from '../http/guard';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../http/idempotency-key';

/** Pieces the route contracts share: the id parameter, error answers, headers, the image upload. */

/** A row id in the path; the guard answers 404 for anything else (see pathId for the exact check). */
const rowIdParam = z
  .string()
  .regex(/^\d{1,10}$/)
  .meta({ type: 'integer', minimum: 1, maximum: MAX_ROW_ID });

/** `{id}`: the resource's row id. */
export const idParams = z.object({ id: rowIdParam });

/** `{id}` of a group and `{contact_id}` of one of its guests. */
export const groupGuestParams = z.object({ id: rowIdParam, contact_id: rowIdParam });

export const IMAGE_LIMIT = megabytes(MAX_IMAGE_BYTES);

/** A v4 error answer, in the documented error envelope. */
export const v4Error = (description: string): ResponseContract => ({ description, schema: errorEnvelope });
/** v3 error answers, Laravel's shapes. */
export const v3Message = (description: string): ResponseContract => ({ description, schema: messageV3 });
export const v3Invalid = (description: string): ResponseContract => ({ description, schema: validationErrorV3 });

export const ETAG_HEADER = {
  ETag: { schema: { type: 'string' }, description: 'Version of the contact, for If-Match.' },
};

/** The image's own validator (its SHA-256), not the contact's ETag: it changes only with the image. */
export const IMAGE_ETAG_HEADER = {
  ETag: {
    schema: { type: 'string' },
    description: "Version of the image (not the contact's ETag); send it in If-None-Match to revalidate.",
  },
};

/** The multipart `image` field of a contact write (parsed by parseBody, checked by readContactInput). */
const imageField = z.object({
  image: z
    .string()
    .meta({ contentMediaType: 'application/octet-stream', description: `JPEG or PNG, at most ${IMAGE_LIMIT}.` }),
});

/**
 * A contact write's body as documented: JSON, a URL-encoded form, or multipart/form-data with an
 * image. readContactInput validates it (zod cannot parse the multipart files), so it is described only.
 */
export function contactWriteBody(fields: z.ZodType): Record<string, z.ZodType> {
  return {
    'application/json': fields,
    'application/x-www-form-urlencoded': fields,
    'multipart/form-data': z.intersection(fields, imageField.partial()),
  };
}

/** The `Idempotency-Key` request header of the creating operations (http/idempotency-key.ts). */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1 },
  description: `Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a unique value per request, e.g. a UUID, 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, bare or as a quoted string (\`"…"\`, the same key). Per member, remembered ${IDEMPOTENCY_KEY_TTL_SECONDS / 3600} hours after a successful write: the same request again with the key writes nothing and is answered as the first was, with the contacts as they are now and \`${IDEMPOTENT_REPLAYED_HEADER}: true\`. A refused request (4xx) is not remembered.`,
};

/** The header that marks a replayed answer. */
export const REPLAYED_HEADER = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    schema: { type: 'string', enum: ['true'] },
    description: 'Only on an answer replayed for a repeated Idempotency-Key: nothing was written this time.',
  },
};

/** The answers an Idempotency-Key adds, by status (a route merges 422 with its own). */
export const IDEMPOTENCY_ANSWERS = {
  400: v4Error('A malformed Idempotency-Key (sent twice, empty, too long, not printable ASCII).'),
  409: {
    ...v4Error(
      '`idempotency_key_in_use`: the first request with this Idempotency-Key is still being processed; nothing was written. Send it again after Retry-After.',
    ),
    headers: { 'Retry-After': { schema: { type: 'integer', minimum: 0 }, description: 'Seconds to wait.' } },
  },
  422: '`idempotency_key_reused`: the Idempotency-Key was used with a different request (method, path or body); nothing was written.',
} as const;
