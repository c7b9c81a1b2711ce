import type { Knex } from 'knex';
import { migrations } from '../migrations/index';
import type { Database } from './connection';

const source: Knex.MigrationSource<{ name: string; migration: Knex.Migration }> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (entry) => entry.name,
  getMigration: async (entry) => entry.migration,
};

const MIGRATIONS_TABLE = 'knex_migrations';
const LOCK_TABLE = `${MIGRATIONS_TABLE}_lock`;
const config: Knex.MigratorConfig = {
  migrationSource: source,
  tableName: MIGRATIONS_TABLE,
  // A schema ahead of this release (a newer one migrated it; this one is rolled back to, or an old
  // replica restarts): knex calls that "corrupt" and refuses. The migrations this release knows
  // are applied all the same, so there is nothing to do: see newerMigrations().
  disableMigrationsListValidation: true,
};

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_ADVISORY_LOCK = 7_390_214_551;

/**
 * Brings the schema up to date. Safe to run from many processes at once: a session-level
 * advisory lock serialises them before knex even creates its own bookkeeping tables (where
 * two concurrent first runs would otherwise collide on a duplicate key).
 */
export async function migrateLatest(db: Database): Promise<string[]> {
  return withAdvisoryLock(db, async () => {
    await resetKnexLock(db);
    const [, applied] = (await db.migrate.latest(config)) as [number, string[]];
    return applied;
  });
}

export async function migrateRollbackAll(db: Database): Promise<void> {
  await withAdvisoryLock(db, async () => {
    await resetKnexLock(db);
    await db.migrate.rollback(config, true);
  });
}

/**
 * Names of migrations not yet applied; empty when the schema is current. Read-only on
 * purpose: knex's own `migrate.list` creates its bookkeeping tables and lock row when they
 * are missing, and run by a readiness probe next to a migrating process it could insert a
 * second lock row, after which every knex migration fails with "already locked".
 */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const applied = new Set<string>();
  if (await tableExists(db, MIGRATIONS_TABLE)) {
    const rows = (await db(MIGRATIONS_TABLE).select('name')) as Array<{ name: string }>;
    for (const row of rows) applied.add(row.name);
  }
  return migrations.map((entry) => entry.name).filter((name) => !applied.has(name));
}

/**
 * Migrations the database has that this release does not know: a newer release migrated it.
 * Read-only, like pendingMigrations().
 */
export async function newerMigrations(db: Database): Promise<string[]> {
  if (!(await tableExists(db, MIGRATIONS_TABLE))) return [];
  const known = new Set(migrations.map((entry) => entry.name));
  const rows = (await db(MIGRATIONS_TABLE).orderBy('id').select('name')) as Array<{ name: string }>;
  return rows.map((row) => row.name).filter((name) => !known.has(name));
}

/**
 * Only called under the advisory lock, where no other process can be migrating: whatever
 * knex's lock row says then is left over from a migrate that crashed (or from duplicate rows),
 * so it is reset to the one unlocked row knex expects rather than blocking deployments forever.
 */
async function resetKnexLock(db: Database): Promise<void> {
  if (!(await tableExists(db, LOCK_TABLE))) return;
  await db.transaction(async (trx) => {
    await trx.raw(`delete from ${LOCK_TABLE} where index <> (select min(index) from ${LOCK_TABLE})`);
    await trx(LOCK_TABLE).update({ is_locked: 0 });
  });
}

async function tableExists(db: Database, table: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: Array<{ found: string | null }> }>('select to_regclass(?) as found', [table]);
  return Boolean(rows[0]?.found);
}

async function withAdvisoryLock<T>(db: Database, work: () => Promise<T>): Promise<T> {
  const connection = await db.client.acquireConnection();
  try {
    await connection.query('select pg_advisory_lock($1)', [MIGRATION_ADVISORY_LOCK]);
    try {
      return await work();
    } finally {
      await connection.query('select pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK]);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}
