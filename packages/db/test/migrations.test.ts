import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, migrateLatest, migrateRollbackAll, pendingMigrations } from '../src/index';
import { createEmptyTestDatabase, type TestDatabase } from '../src/testing/index';

const tablesOf = async (database: TestDatabase) =>
  (await database
    .db('information_schema.tables')
    .where({ table_schema: 'public' })
    .whereNot('table_name', 'like', 'knex_%')
    .orderBy('table_name')
    .pluck('table_name')) as string[];

describe('migrations', () => {
  let database: TestDatabase;
  afterEach(async () => database?.drop());

  it('create the whole schema on an empty database, and roll back to nothing', async () => {
    database = await createEmptyTestDatabase();
    expect(await pendingMigrations(database.db)).not.toHaveLength(0);

    await migrateLatest(database.db);
    expect(await pendingMigrations(database.db)).toEqual([]);
    expect(await tablesOf(database)).toEqual([
      'audit_events',
      'business_categories',
      'contact_images',
      'contacts',
      'group_members',
      'groups',
      'member_sessions',
      'members',
      'oauth_clients',
      'oidc_models',
      'personal_access_tokens',
      'rate_limits',
    ]);

    await migrateRollbackAll(database.db);
    expect(await tablesOf(database)).toEqual([]);

    await migrateLatest(database.db);
    expect(await tablesOf(database)).toHaveLength(12);
  });

  it('apply each migration exactly once when many processes migrate an empty database at once', async () => {
    database = await createEmptyTestDatabase();
    // Separate pools behave like separate processes: separate connections, no shared state.
    const pools = Array.from({ length: 5 }, () => createDatabase(database.url, { poolMax: 3 }));
    try {
      const results = await Promise.all(pools.map((pool) => migrateLatest(pool)));
      const applied = results.flat();
      expect(applied.length).toBe(new Set(applied).size);
      expect(results.filter((names) => names.length > 0)).toHaveLength(1);
    } finally {
      await Promise.all(pools.map((pool) => pool.destroy()));
    }
    const runs = await database.db('knex_migrations').count<{ count: number }[]>('* as count');
    expect(runs[0]?.count).toBe((await database.db('knex_migrations').distinct('name')).length);
  });
});
