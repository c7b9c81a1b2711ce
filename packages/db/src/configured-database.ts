import pg from 'pg';
import { driverConnectionString, withDatabaseName } from './connection';
import { type EmbeddedDatabaseOptions, startEmbeddedDatabase } from './embedded';

const EMBEDDED_DATABASE_NAME = 'contacts';

/**
 * Which server to use, as read and validated by the caller (databaseSettingsFrom in
 * @contacts/config: DATABASE_URL, EMBEDDED_PG_PORT; DATA_DIR via dataDirectory()).
 */
export interface DatabaseServerSettings {
  /** The product's database on a server of the operator's; undefined: the embedded PostgreSQL. */
  url: string | undefined;
  /** Where the embedded PostgreSQL listens when this process starts it. */
  embeddedPort: number;
  /** Where the embedded PostgreSQL keeps its data (DATA_DIR). */
  dataDir: string;
}

export interface DatabaseServer {
  /** URL of the product's database. */
  url: string;
  /** 'external' when DATABASE_URL names it, 'embedded' otherwise. */
  kind: 'external' | 'embedded';
  /** The embedded server's data folder (undefined for DATABASE_URL's). */
  dataFolder: string | undefined;
  /** Stops the embedded server when this process started it; otherwise does nothing. */
  stop(): Promise<void>;
}

/**
 * The database this process should use: `url` when set, otherwise the embedded PostgreSQL
 * under `dataDir`, started if it is not already running.
 */
export async function openDatabaseServer(
  settings: DatabaseServerSettings,
  options: Pick<EmbeddedDatabaseOptions, 'mode' | 'command' | 'log' | 'warn'>,
): Promise<DatabaseServer> {
  if (settings.url) return { url: settings.url, kind: 'external', dataFolder: undefined, stop: async () => {} };
  const server = await startEmbeddedDatabase({ ...options, dataDir: settings.dataDir, port: settings.embeddedPort });
  try {
    await ensureDatabaseExists(server.url, EMBEDDED_DATABASE_NAME);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    url: withDatabaseName(server.url, EMBEDDED_DATABASE_NAME),
    kind: 'embedded',
    dataFolder: server.pgdata,
    stop: () => server.stop(),
  };
}

export async function ensureDatabaseExists(maintenanceUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: driverConnectionString(maintenanceUrl) });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`create database ${pg.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
        // Another process created it between our check and our create: 42P04 once it has
        // committed, 23505 (pg_database's unique index) while both creates run at once.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await client.end();
  }
}
