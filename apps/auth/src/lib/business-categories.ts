import { type Database, insertBusinessCategory } from '@contacts/db';
import { InputError, requireText } from './validation';

/** The business categories contacts can be filed under, created by an operator from the CLI. */
export async function createBusinessCategory(db: Database, input: { name: unknown }) {
  const name = requireText(input.name, 'name', 'Name');
  try {
    return await insertBusinessCategory(db, { name });
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw new InputError(`A category named "${name}" already exists.`, 'name');
    throw error;
  }
}
