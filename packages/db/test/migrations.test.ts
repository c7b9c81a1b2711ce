import { afterEach, describe, expect, it } from 'vitest';
import * as personalTokenGrantExpiry from '../migrations/20261127000000_personal_token_grant_expiry';
import { createDatabase, migrateLatest, migrateRollbackAll, newerMigrations, pendingMigrations } from '../src/index';
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
    const everyTable = [
      'audit_events',
      'business_categories',
      'contact_images',
      'contact_tombstones',
      'contacts',
      'dpop_proofs',
      'group_members',
      'groups',
      'idempotency_keys',
      'member_sessions',
      'members',
      'oauth_clients',
      'oidc_models',
      'personal_access_tokens',
      'rate_limits',
    ];
    expect(await tablesOf(database)).toEqual(everyTable);

    await migrateRollbackAll(database.db);
    expect(await tablesOf(database)).toEqual([]);

    await migrateLatest(database.db);
    expect(await tablesOf(database)).toEqual(everyTable);
  });

  it('leave a database a newer release migrated as it is, naming the migrations this release does not know', async () => {
    database = await createEmptyTestDatabase();
    await migrateLatest(database.db);
    // What a newer release's migrate leaves behind (this one is rolled back to, or an old replica restarts).
    await database
      .db('knex_migrations')
      .insert({ name: '20990101000000_from_a_newer_release', batch: 99, migration_time: new Date() });

    expect(await migrateLatest(database.db)).toEqual([]);
    expect(await newerMigrations(database.db)).toEqual(['20990101000000_from_a_newer_release']);
    expect(await pendingMigrations(database.db)).toEqual([]);
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

  it('never write while checking for pending migrations, so probes next to a migrating process cannot break it', async () => {
    database = await createEmptyTestDatabase();
    const probe = createDatabase(database.url, { poolMax: 2 });
    const migrators = Array.from({ length: 3 }, () => createDatabase(database.url, { poolMax: 3 }));
    let migrating = true;
    const probes = (async () => {
      let checks = 0;
      while (migrating || checks === 0) {
        await pendingMigrations(probe);
        checks += 1;
      }
      return checks;
    })();
    try {
      const results = await Promise.all(migrators.map((pool) => migrateLatest(pool)));
      migrating = false;
      expect(await probes).toBeGreaterThan(0);
      expect(results.filter((names) => names.length > 0)).toHaveLength(1);
    } finally {
      migrating = false;
      await Promise.all([probe, ...migrators].map((pool) => pool.destroy()));
    }
    expect(await database.db('knex_migrations_lock').select('is_locked')).toEqual([{ is_locked: 0 }]);
  });

  it('report pending migrations on a database knex has never touched without creating anything', async () => {
    database = await createEmptyTestDatabase();
    expect(await pendingMigrations(database.db)).not.toHaveLength(0);
    const knexTables = await database.db('information_schema.tables').where('table_name', 'like', 'knex_%');
    expect(knexTables).toEqual([]);
  });

  it('release the lock a crashed migrate left behind, even a duplicated lock row', async () => {
    database = await createEmptyTestDatabase();
    await migrateLatest(database.db);
    await database.db('knex_migrations_lock').update({ is_locked: 1 });
    await database.db('knex_migrations_lock').insert({ is_locked: 0 });

    expect(await migrateLatest(database.db)).toEqual([]);
    expect(await database.db('knex_migrations_lock').select('is_locked')).toEqual([{ is_locked: 0 }]);
  });

  it("give an existing personal token's consent the token's expiry (and a minute), leaving other consents and earlier expiries alone", async () => {
    database = await createEmptyTestDatabase();
    await migrateLatest(database.db);
    const { db } = database;
    const [member] = await db('members')
      .insert({ email: 'm@example.com', name: 'M', password_hash: 'x' })
      .returning('id');
    const tokenExpiry = new Date('2027-01-01T00:00:00Z');
    const aYearOn = new Date('2027-11-27T00:00:00Z');
    await db('personal_access_tokens').insert({
      member_id: (member as { id: number }).id,
      name: 'script',
      token_hash: 'h',
      grant_id: 'pat-grant',
      scopes: ['*'],
      expires_at: tokenExpiry,
    });
    const grant = (grantId: string, expiresAt: Date) => ({
      model: 'Grant',
      id_hash: `hash-${grantId}`,
      payload: {},
      grant_id: grantId,
      expires_at: expiresAt,
    });
    await db('oidc_models').insert([grant('pat-grant', aYearOn), grant('app-grant', aYearOn)]);
    await personalTokenGrantExpiry.up(db);
    const expiries = Object.fromEntries(
      (await db('oidc_models').select('grant_id', 'expires_at')).map((row) => [
        row.grant_id,
        new Date(row.expires_at).toISOString(),
      ]),
    );
    expect(expiries).toEqual({ 'pat-grant': '2027-01-01T00:01:00.000Z', 'app-grant': aYearOn.toISOString() });
  });
});
