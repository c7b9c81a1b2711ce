import { z } from 'zod';
import { contactCreateV4, contactUpdateV4 } from './contact-input';
import { contactV4WithEtag } from './contact-v4';
import { rowIdMessage, rowIdNumber } from './row-id';
import type { FieldErrors } from './validation';
import { validate } from './validation';

export const MAX_BATCH_OPERATIONS = 200;

const rowId = rowIdNumber(rowIdMessage('id'));

/** The envelope of POST /v4/contacts/batch; each operation is checked on its own (see readBatchOperations). */
export const contactBatchV4 = z.object({
  operations: z
    .array(z.unknown(), { error: 'The operations must be an array.' })
    .min(1, 'Send at least one operation.')
    .max(MAX_BATCH_OPERATIONS, `At most ${MAX_BATCH_OPERATIONS} operations can be sent at once.`),
});

const notAnEntityTag = 'The if_match must be one entity tag, quotes included (the ETag of the contact as read).';
/** One entity tag (RFC 9110 §8.8.3): a client that dropped the quotes is told so, not that the contact changed. */
const ifMatch = z
  .string({ error: notAnEntityTag })
  .regex(/^(W\/)?"[\x21\x23-\x7e\x80-\uffff]*"$/, notAnEntityTag)
  .optional();
const createOperation = z.object({ op: z.literal('create'), contact: z.record(z.string(), z.unknown()) });
const updateOperation = z.object({
  op: z.literal('update'),
  id: rowId,
  contact: z.record(z.string(), z.unknown()),
  if_match: ifMatch,
});
const deleteOperation = z.object({ op: z.literal('delete'), id: rowId, if_match: ifMatch });

/** One operation as documented (the contact's fields are those of POST /v4/contacts and /v4/contacts/{id}). */
export const contactBatchOperationV4 = z.discriminatedUnion('op', [
  createOperation.extend({ contact: contactCreateV4 }),
  updateOperation.extend({ contact: contactUpdateV4 }),
  deleteOperation,
]);

export type BatchOperationV4 =
  | { op: 'create'; contact: z.output<typeof contactCreateV4> }
  | { op: 'update'; id: number; contact: z.output<typeof contactUpdateV4>; ifMatch?: string }
  | { op: 'delete'; id: number; ifMatch?: string };

export const contactBatchResultV4 = z.object({
  data: z.array(
    z.union([
      contactV4WithEtag,
      z.object({
        id: z.int(),
        deleted: z.boolean().describe('False when the caller had no such contact: nothing to delete.'),
      }),
    ]),
  ),
});

/** The key a batch error is reported under: `operations[3].contact.email`, `operations[0].id`. */
export const batchFieldKey = (index: number, ...path: string[]) => [`operations[${index}]`, ...path].join('.');

/**
 * Validates every operation, collecting the problems of all of them under keys that name the
 * operation and its field, so one 422 lists everything; the operations when all are valid.
 */
export function readBatchOperations(
  operations: readonly unknown[],
): { ok: true; value: BatchOperationV4[] } | { ok: false; fields: FieldErrors } {
  const fields: FieldErrors = {};
  const value: BatchOperationV4[] = [];
  const add = (key: string, messages: string[]) => {
    fields[key] = [...(fields[key] ?? []), ...messages];
  };
  operations.forEach((raw, index) => {
    const kind = (raw as { op?: unknown } | null)?.op;
    const shape =
      kind === 'create'
        ? createOperation
        : kind === 'update'
          ? updateOperation
          : kind === 'delete'
            ? deleteOperation
            : undefined;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !shape) {
      add(batchFieldKey(index, 'op'), ['The op must be one of create, update, delete.']);
      return;
    }
    const parsed = shape.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const key = issue.path.length > 0 ? String(issue.path[0]) : 'op';
        add(batchFieldKey(index, key), [
          key === 'contact' ? 'The contact must be an object of contact fields.' : issue.message,
        ]);
      }
    }
    // The contact's fields are checked even when the rest of its operation is refused (a bad id,
    // a bad if_match), so that one 422 lists every problem; when it is no object, that was said.
    const rawContact = (raw as { contact?: unknown }).contact;
    const contactIsObject = rawContact !== null && typeof rawContact === 'object' && !Array.isArray(rawContact);
    const contact =
      kind !== 'delete' && contactIsObject
        ? validate(kind === 'create' ? contactCreateV4 : contactUpdateV4, rawContact)
        : undefined;
    if (contact && !contact.ok) {
      for (const [key, messages] of Object.entries(contact.fields)) add(batchFieldKey(index, 'contact', key), messages);
    }
    if (!parsed.success || (contact && !contact.ok)) return;
    const condition =
      parsed.data.op !== 'create' && parsed.data.if_match !== undefined ? { ifMatch: parsed.data.if_match } : {};
    if (parsed.data.op === 'delete') {
      value.push({ op: 'delete', id: parsed.data.id, ...condition });
      return;
    }
    // Parsed as a create or an update, its contact is an object, so it was validated above.
    if (!contact) throw new Error(`operations[${index}]: a ${parsed.data.op} without a contact passed its schema`);
    if (parsed.data.op === 'create')
      value.push({ op: 'create', contact: contact.value as z.output<typeof contactCreateV4> });
    else value.push({ op: 'update', id: parsed.data.id, contact: contact.value, ...condition });
  });
  return Object.keys(fields).length > 0 ? { ok: false, fields } : { ok: true, value };
}
