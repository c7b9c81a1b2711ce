import { z } from 'zod';

import { MAX_DELETE_IDS } from './limits';
import { MAX_ROW_ID, rowIdMessage, rowIdNumber } from './row-id';

const idMessage = `Each contact id must be an integer from 1 to ${MAX_ROW_ID}.`;

/**
 * DELETE /v4/contacts: contact_ids and/or group_id, at least one of them. With both, only the
 * listed contacts that are in the group are deleted (each one narrows the other).
 */
export const deleteContactsV4 = z
  .object({
    contact_ids: z
      .array(rowIdNumber(idMessage), {
        error: 'The contact ids must be an array of integers.',
      })
      .max(MAX_DELETE_IDS, `At most ${MAX_DELETE_IDS} contact ids can be deleted at once.`)
      .optional(),
    group_id: rowIdNumber(rowIdMessage('group id')).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.contact_ids === undefined && body.group_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['contact_ids'], message: 'Send contact_ids, group_id, or both.' });
    } else if (body.contact_ids !== undefined && body.contact_ids.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['contact_ids'], message: 'The contact ids must not be empty.' });
    }
  });

export type DeleteContactsV4 = z.output<typeof deleteContactsV4>;

export const deleteContactsResultV4 = z.object({
  data: z.object({ deleted_ids: z.array(z.int()) }),
  deleted_count: z.int(),
});
