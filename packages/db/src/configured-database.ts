import pg from 'pg';
import { withDatabaseName } from './connection';
import { startEmbeddedDatabase } from './embedded';
import { dataDirectory } from './paths';

export const DEFAULT_EMBEDDED_PORT = 54329;
const EMBEDDED_DATABASE_NAME = 'contacts';

export interface DatabaseServer {
  /** URL of the product's database. */
  url: string;
  /** 'external' when DATABASE_URL names it, 'embedded' otherwise. */
  kind: 'external' | 'embedded';
  /** Stops the embedded server when this process started it; otherwise does nothing. */
  stop(): Promise<void>;
}

/**
 * The database this process should use: DATABASE_URL when set, otherwise the embedded
 * PostgreSQL under DATA_DIR, started if it is not already running.
 */
export async function openDatabaseServer(options: {
  env?: NodeJS.ProcessEnv;
  mode: 'own' | 'share';
  log?: (message: string) => void;
}): Promise<DatabaseServer> {
  const env = options.env ?? process.env;
  if (env.DATABASE_URL) {
    return { url: env.DATABASE_URL, kind: 'external', stop: async () => {} };
  }
  const port = Number.parseInt(env.EMBEDDED_PG_PORT ?? String(DEFAULT_EMBEDDED_PORT), 10);
  const server = await startEmbeddedDatabase({
    dataDir: dataDirectory(env),
    port,
    mode: options.mode,
    ...(options.log ? { log: options.log } : {}),
  });
  try {
    await ensureDatabaseExists(server.url, EMBEDDED_DATABASE_NAME);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: withDatabaseName(server.url, EMBEDDED_DATABASE_NAME), kind: 'embedded', stop: () => server.stop() };
}

export async function ensureDatabaseExists(maintenanceUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`create database ${pg.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
        // 42P04: another process created it between our check and our create.
        if (error.code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
}
