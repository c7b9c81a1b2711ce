import { type DatabaseServerSettings, openDatabaseServer } from './configured-database';
import { createDatabase, type Database } from './connection';
import { migrateLatest, pendingMigrations } from './migrate';

export interface ServiceDatabase {
  db: Database;
  kind: 'external' | 'embedded';
  close(): Promise<void>;
}

/** The validated settings of a process's database (databaseSettingsFrom in @contacts/config, plus DATA_DIR). */
export interface ServiceDatabaseSettings extends DatabaseServerSettings {
  /** Connections kept open at most (DB_POOL_MAX). */
  poolMax: number;
}

/**
 * The database of one running service. With DATABASE_URL the schema is the migrate step's
 * job (`pnpm cli migrate`), and a service only warns when it is behind; with the embedded
 * development database the service migrates it itself, so that one command runs the product.
 * `migrate: true` (MIGRATE_ON_START=true, or the launcher) migrates an external database too:
 * replicas starting at once are serialised by the migration lock, so each migration is
 * applied exactly once.
 */
export async function openServiceDatabase(options: {
  settings: ServiceDatabaseSettings;
  applicationName: string;
  log: (message: string) => void;
  mode?: 'own' | 'share';
  /** Migrate even an external database (the launcher does; production has its migrate step). */
  migrate?: boolean;
}): Promise<ServiceDatabase> {
  const { settings } = options;
  const server = await openDatabaseServer(settings, { mode: options.mode ?? 'share', log: options.log });
  const db = createDatabase(server.url, {
    poolMax: settings.poolMax,
    applicationName: options.applicationName,
    log: options.log,
  });
  try {
    if (options.migrate || server.kind === 'embedded') {
      const applied = await migrateLatest(db);
      options.log(applied.length > 0 ? `migrations applied: ${applied.join(', ')}` : 'schema up to date');
    } else {
      const pending = await pendingMigrations(db).catch(() => ['(database unreachable)']);
      if (pending.length > 0) options.log(`migrations pending: ${pending.join(', ')}; run \`pnpm cli migrate\``);
    }
  } catch (error) {
    // The embedded server this process started must not outlive a failed start.
    await db.destroy();
    await server.stop();
    throw error;
  }
  return {
    db,
    kind: server.kind,
    async close() {
      await db.destroy();
      await server.stop();
    },
  };
}
