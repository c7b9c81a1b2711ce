import type { Database } from '../connection';

export interface BusinessCategoryRow {
  id: number;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export type BusinessCategory = Pick<BusinessCategoryRow, 'id' | 'name'>;

export async function insertBusinessCategory(
  db: Database,
  category: Pick<BusinessCategoryRow, 'name'>,
): Promise<BusinessCategory> {
  const [row] = await db<BusinessCategoryRow>('business_categories').insert(category).returning(['id', 'name']);
  return row as BusinessCategory;
}

export async function findBusinessCategoryById(db: Database, id: number): Promise<BusinessCategory | undefined> {
  return db<BusinessCategoryRow>('business_categories').where({ id }).first('id', 'name');
}

export async function listBusinessCategories(db: Database): Promise<BusinessCategory[]> {
  return db<BusinessCategoryRow>('business_categories').orderBy('id').select('id', 'name');
}

/** One page of categories by id: up to `limit` + 1 rows. */
export async function listBusinessCategoriesPage(
  db: Database,
  page: { limit: number; after?: number },
): Promise<BusinessCategory[]> {
  const query = db<BusinessCategoryRow>('business_categories')
    .orderBy('id')
    .limit(page.limit + 1)
    .select('id', 'name');
  if (page.after !== undefined) query.where('id', '>', page.after);
  return query;
}
