import { createBusinessCategory } from '@contacts/auth';
import { listBusinessCategoriesPage } from '@contacts/db';
import { afterId, pageLimit, pageOptions, toPage } from '../paging';
import type { Command } from './index';

export const categoryCommands: Record<string, Command> = {
  create: {
    summary: 'category create --name N',
    description: 'Adds a business category that contacts can be filed under.',
    options: { name: { type: 'string' } },
    required: ['name'],
    run: (values, { db }) => createBusinessCategory(db, { name: values.name }),
  },
  list: {
    summary: 'category list [--limit N] [--after ID]',
    description: 'Lists business categories by id, one page at a time.',
    options: { ...pageOptions },
    required: [],
    run: async (values, { db }) => {
      const limit = pageLimit(values);
      const rows = await listBusinessCategoriesPage(db, { limit, after: afterId(values) });
      return { ...toPage(rows, limit, (row) => row.id, { words: 'category list' }) };
    },
  },
};
