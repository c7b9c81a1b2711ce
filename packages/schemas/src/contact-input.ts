import { z } from 'zod';
import {
  CONTACT_FIELDS,
  type ContactChanges,
  type ContactColumn,
  type ContactFieldSpec,
  type NewContact,
  WRITABLE_CONTACT_COLUMNS,
} from './contact-fields';
import { optionalDate, optionalEmail, optionalId, optionalText, optionalWebsite, requiredText } from './fields';

type Fields = typeof CONTACT_FIELDS;

/** The input schema of one optional field, by its kind. */
type OptionalFieldSchema<F extends ContactFieldSpec> = F['kind'] extends 'email'
  ? ReturnType<typeof optionalEmail>
  : F['kind'] extends 'url'
    ? ReturnType<typeof optionalWebsite>
    : F['kind'] extends 'date'
      ? ReturnType<typeof optionalDate>
      : F['kind'] extends 'id'
        ? ReturnType<typeof optionalId>
        : ReturnType<typeof optionalText>;

type FieldSchema<F extends ContactFieldSpec> = F extends { required: true }
  ? ReturnType<typeof requiredText>
  : OptionalFieldSchema<F>;

/** The columns v4 knows, and their v4 names. */
type V4Column = { [C in ContactColumn]: Fields[C]['v4'] extends string ? C : never }[ContactColumn];
type V4NameOf<C extends V4Column> = Fields[C]['v4'] & string;

/** The input schema of one field, from its table line; `name` names it in messages. */
export function contactFieldInput<C extends ContactColumn>(column: C, name: string): FieldSchema<Fields[C]> {
  const spec: ContactFieldSpec = CONTACT_FIELDS[column];
  const schema = (() => {
    if (spec.required) return requiredText(name, spec.max);
    switch (spec.kind) {
      case 'email':
        return optionalEmail(spec.max);
      case 'url':
        return optionalWebsite(spec.max);
      case 'date':
        return optionalDate(name);
      case 'id':
        return optionalId(name);
      case 'text':
        return optionalText(name, spec.max);
    }
  })();
  return schema as FieldSchema<Fields[C]>;
}

const V4_COLUMNS = WRITABLE_CONTACT_COLUMNS.filter(
  (column): column is V4Column => (CONTACT_FIELDS[column] as ContactFieldSpec).v4 !== false,
);
const v4NameOf = (column: V4Column): string => CONTACT_FIELDS[column].v4;

type CreateShapeV4 = {
  [C in V4Column as V4NameOf<C>]: Fields[C] extends { required: true }
    ? FieldSchema<Fields[C]>
    : z.ZodOptional<FieldSchema<Fields[C]>>;
};
type UpdateShapeV4 = { [C in V4Column as V4NameOf<C>]: z.ZodOptional<FieldSchema<Fields[C]>> };

function v4Shape(requireRequired: boolean): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const column of V4_COLUMNS) {
    const schema = contactFieldInput(column, v4NameOf(column));
    const required = (CONTACT_FIELDS[column] as ContactFieldSpec).required === true;
    shape[v4NameOf(column)] = requireRequired && required ? schema : schema.optional();
  }
  return shape;
}

/** POST /v4/contacts. Unknown fields are ignored (z.object strips them). */
export const contactCreateV4 = z
  .object(v4Shape(true) as CreateShapeV4)
  .describe('A new contact. Only `name` is required; unknown fields are ignored.');

/** POST /v4/contacts/{id}: only the fields sent change; `name`, when sent, cannot be emptied. */
export const contactUpdateV4 = z
  .object(v4Shape(false) as UpdateShapeV4)
  .describe('The fields to change; the others keep their values. An optional field sent empty or null is cleared.');

export type ContactCreateV4 = z.output<typeof contactCreateV4>;
export type ContactUpdateV4 = z.output<typeof contactUpdateV4>;

/**
 * Maps v4 input names to the stored columns, keeping "absent" (undefined) apart from "cleared"
 * (null). A create's input has every required field (its schema demands them), so it maps to a
 * NewContact.
 */
export function v4InputToChanges(input: ContactCreateV4): NewContact;
export function v4InputToChanges(input: ContactUpdateV4): ContactChanges;
export function v4InputToChanges(input: ContactUpdateV4): ContactChanges {
  const changes: Record<string, unknown> = {};
  const values = input as Record<string, unknown>;
  for (const column of V4_COLUMNS) {
    const value = values[v4NameOf(column)];
    if (value !== undefined) changes[column] = value;
  }
  return changes as ContactChanges;
}
