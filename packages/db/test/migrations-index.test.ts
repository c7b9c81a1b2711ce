import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index';

/**
 * migrations/index.ts lists every migration by hand (static imports load the same way under
 * tsx, vitest and the esbuild bundle; a folder read at run time would not survive bundling), and
 * writes each name twice there: in the import and in the list. A file left out of the list is a
 * migration production never runs, silently; these tests catch it, and a name that does not
 * match its module.
 */
const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

/** The migration files in the folder, by name (without .ts), in the order knex must run them. */
function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => file !== 'index.ts')
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
}

describe('the migrations index', () => {
  it('lists every file of the migrations folder, and only those, in file-name (timestamp) order', () => {
    expect(migrations.map(({ name }) => name)).toEqual(migrationFiles());
  });

  it('holds only migrations, each named <14-digit timestamp>_<words>.ts', () => {
    for (const file of readdirSync(MIGRATIONS_DIR).filter((name) => name !== 'index.ts')) {
      expect(file).toMatch(/^\d{14}_[a-z0-9_]+\.ts$/);
    }
  });

  it('gives each name the module of the file of that name', async () => {
    for (const { name, migration } of migrations) {
      const module: unknown = await import(`../migrations/${name}.ts`);
      expect(migration, name).toBe(module);
    }
  });
});
