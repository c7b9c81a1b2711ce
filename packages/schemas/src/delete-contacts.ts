import { z } from 'zod';

import { MAX_DELETE_IDS } from './limits';
import { MAX_ROW_ID, rowIdMessage, rowIdNumber } from './row-id';

const idMessage = `Each contact id must be an integer from 1 to ${MAX_ROW_ID}.`;

/**
 * DELETE /v4/contacts: contact_ids (not empty) and/or group_id, at least one of them. With both,
 * only the listed contacts that are in the group are deleted (each one narrows the other). The
 * document states both rules (minItems; anyOf of the two `required`), so that a client validating
 * by it never sends `{}` or an empty list.
 */
export const deleteContactsV4 = z
  .object({
    contact_ids: z
      .array(rowIdNumber(idMessage), {
        error: 'The contact ids must be an array of integers.',
      })
      .min(1, 'The contact ids must not be empty.')
      .max(MAX_DELETE_IDS, `At most ${MAX_DELETE_IDS} contact ids can be deleted at once.`)
      .optional(),
    group_id: rowIdNumber(rowIdMessage('group id')).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.contact_ids === undefined && body.group_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['contact_ids'], message: 'Send contact_ids, group_id, or both.' });
    }
  })
  // Each alternative a whole object schema naming its property: some readers of a document (zod's
  // fromJSONSchema, for one) pass over an alternative that holds a bare `required`.
  .meta({
    anyOf: ['contact_ids', 'group_id'].map((name) => ({
      type: 'object',
      properties: { [name]: {} },
      required: [name],
    })),
  });

export type DeleteContactsV4 = z.output<typeof deleteContactsV4>;

export const deleteContactsResultV4 = z.object({
  data: z.object({ deleted_ids: z.array(z.int()) }),
  deleted_count: z.int(),
});
