import type { Knex } from 'knex';
import { migrations } from '../migrations/index';
import type { Database } from './connection';

const source: Knex.MigrationSource<{ name: string; migration: Knex.Migration }> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (entry) => entry.name,
  getMigration: async (entry) => entry.migration,
};

const config: Knex.MigratorConfig = { migrationSource: source, tableName: 'knex_migrations' };

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_ADVISORY_LOCK = 7_390_214_551;

/**
 * Brings the schema up to date. Safe to run from many processes at once: a session-level
 * advisory lock serialises them before knex even creates its own bookkeeping tables (where
 * two concurrent first runs would otherwise collide on a duplicate key).
 */
export async function migrateLatest(db: Database): Promise<string[]> {
  return withAdvisoryLock(db, async () => {
    const [, applied] = (await db.migrate.latest(config)) as [number, string[]];
    return applied;
  });
}

export async function migrateRollbackAll(db: Database): Promise<void> {
  await withAdvisoryLock(db, () => db.migrate.rollback(config, true));
}

/** Names of migrations not yet applied; empty when the schema is current. */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const [, pending] = (await db.migrate.list(config)) as [unknown[], Array<{ file: string } | string>];
  return pending.map((entry) => (typeof entry === 'string' ? entry : entry.file));
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
