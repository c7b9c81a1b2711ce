import { openDatabaseServer } from './configured-database';
import { createDatabase, type Database } from './connection';
import { migrateLatest, pendingMigrations } from './migrate';

export interface ServiceDatabase {
  db: Database;
  kind: 'external' | 'embedded';
  close(): Promise<void>;
}

/**
 * The database of one running service. With DATABASE_URL the schema is the migrate step's
 * job (`pnpm cli migrate`), and a service only warns when it is behind; with the embedded
 * development database the service migrates it itself, so that one command runs the product.
 * MIGRATE_ON_START=true makes a service migrate an external database too: replicas starting
 * at once are serialised by the migration lock, so each migration is applied exactly once.
 */
export async function openServiceDatabase(options: {
  env?: NodeJS.ProcessEnv;
  applicationName: string;
  log: (message: string) => void;
  mode?: 'own' | 'share';
  /** Migrate even an external database (the launcher does; production has its migrate step). */
  migrate?: boolean;
  /** Connections kept open at most (the service's validated DB_POOL_MAX); read from `env` when absent. */
  poolMax?: number;
}): Promise<ServiceDatabase> {
  const env = options.env ?? process.env;
  const server = await openDatabaseServer({ env, mode: options.mode ?? 'share', log: options.log });
  const db = createDatabase(server.url, {
    poolMax: options.poolMax ?? poolMaxFrom(env),
    applicationName: options.applicationName,
  });
  if (options.migrate ?? (server.kind === 'embedded' || env.MIGRATE_ON_START === 'true')) {
    const applied = await migrateLatest(db);
    options.log(applied.length > 0 ? `migrations applied: ${applied.join(', ')}` : 'schema up to date');
  } else {
    const pending = await pendingMigrations(db).catch(() => ['(database unreachable)']);
    if (pending.length > 0) options.log(`migrations pending: ${pending.join(', ')}; run \`pnpm cli migrate\``);
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

/** DB_POOL_MAX for callers without a service configuration (the CLI): a positive integer, default 10. */
function poolMaxFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.DB_POOL_MAX;
  if (raw === undefined || raw === '') return 10;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`DB_POOL_MAX must be an integer >= 1, got "${raw}"`);
  return value;
}
