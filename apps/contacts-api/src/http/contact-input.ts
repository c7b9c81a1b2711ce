import { type ContactChanges, type FieldErrors, validate } from '@contacts/schemas';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { ContactImageInput } from '../domain/contacts';
import { bodyOf } from './body';
import { validationFailed } from './errors';
import { IMAGE_MESSAGE, sniffImage } from './image';

/**
 * The contact fields and optional image of a write (JSON, form or multipart), validated against
 * the API version's schema together so that one 422 lists every problem, then mapped to the
 * domain's column names by that version's mapping.
 */
export async function readContactInput<S extends z.ZodType, C extends ContactChanges>(
  ctx: Context,
  schema: S,
  toChanges: (input: z.output<S>) => C,
): Promise<{ changes: C; image: ContactImageInput | undefined }> {
  const body = bodyOf(ctx);
  const fields =
    body.fields !== null && typeof body.fields === 'object' && !Array.isArray(body.fields)
      ? (body.fields as Record<string, unknown>)
      : undefined;
  if (fields === undefined) throw validationFailed({ _: ['The body must be an object of contact fields.'] });
  const errors: FieldErrors = {};
  const result = validate(schema, fields);
  if (!result.ok) Object.assign(errors, result.fields);

  let image: ContactImageInput | undefined;
  const file = body.files.find((candidate) => candidate.field === 'image');
  // A form whose file input was left empty sends a nameless, empty part: that is "no image".
  if (file && !(file.size === 0 && file.filename === '')) {
    image = await sniffImage(file);
    if (!image) errors.image = [IMAGE_MESSAGE];
  } else if (typeof fields.image === 'string' && fields.image !== '') {
    errors.image = ['The image must be a file sent as multipart/form-data.'];
  }
  if (!result.ok || Object.keys(errors).length > 0) throw validationFailed(errors);
  return { changes: toChanges(result.value), image };
}
