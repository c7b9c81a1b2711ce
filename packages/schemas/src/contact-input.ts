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

/**
 * An API version's input names, each mapped to the column it writes. The versions' schemas and
 * their mappings to columns are built from such a map, so a version accepts exactly the names in
 * its map, with the rules of the columns' lines in CONTACT_FIELDS.
 */
export type ContactInputNames = Readonly<Record<string, ContactColumn>>;

type CreateShape<M extends ContactInputNames> = {
  -readonly [N in keyof M]: Fields[M[N]] extends { required: true }
    ? FieldSchema<Fields[M[N]]>
    : z.ZodOptional<FieldSchema<Fields[M[N]]>>;
};
type UpdateShape<M extends ContactInputNames> = { -readonly [N in keyof M]: z.ZodOptional<FieldSchema<Fields[M[N]]>> };

function inputShape(names: ContactInputNames, requireRequired: boolean): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, column] of Object.entries(names)) {
    const schema = contactFieldInput(column, name);
    const required = (CONTACT_FIELDS[column] as ContactFieldSpec).required === true;
    shape[name] = requireRequired && required ? schema : schema.optional();
  }
  return shape;
}

/** A create's shape: the columns' required fields required, the others optional. */
export function contactCreateShape<M extends ContactInputNames>(names: M): CreateShape<M> {
  return inputShape(names, true) as CreateShape<M>;
}

/** An update's shape: every field optional. */
export function contactUpdateShape<M extends ContactInputNames>(names: M): UpdateShape<M> {
  return inputShape(names, false) as UpdateShape<M>;
}

/**
 * Input to columns by a version's names, keeping "absent" (undefined) apart from "cleared"
 * (null). Where two names write one column and both are sent, the one later in the map wins.
 */
export function contactInputToChanges(names: ContactInputNames, input: object): ContactChanges {
  const changes: Record<string, unknown> = {};
  const values = input as Record<string, unknown>;
  for (const [name, column] of Object.entries(names)) {
    const value = values[name];
    if (value !== undefined) changes[column] = value;
  }
  return changes as ContactChanges;
}

/**
 * v4's names, derived from CONTACT_FIELDS: a column is in v4 unless its line says `v4: false`,
 * so a field added to the table is in v4 (and, deliberately, in no other version).
 */
type V4InputNames = { readonly [C in V4Column as V4NameOf<C>]: C };
const V4_INPUT_NAMES = Object.fromEntries(
  WRITABLE_CONTACT_COLUMNS.flatMap((column) => {
    const name = (CONTACT_FIELDS[column] as ContactFieldSpec).v4;
    return name === false ? [] : [[name, column]];
  }),
) as V4InputNames;

/** POST /v4/contacts. Unknown fields are ignored (z.object strips them). */
export const contactCreateV4 = z
  .object(contactCreateShape(V4_INPUT_NAMES))
  .describe('A new contact. Only `name` is required; unknown fields are ignored.');

/** POST /v4/contacts/{id}: only the fields sent change; `name`, when sent, cannot be emptied. */
export const contactUpdateV4 = z
  .object(contactUpdateShape(V4_INPUT_NAMES))
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
  return contactInputToChanges(V4_INPUT_NAMES, input);
}
