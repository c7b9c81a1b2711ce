import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type Database, withDatabaseName } from '../connection';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string;
    templateDatabase: string;
  }
}

export interface TestDatabase {
  url: string;
  db: Database;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of its own, cloned from the template that the global setup
 * prepared. Cheap enough (tens of milliseconds) to take one per test file.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('databaseServerUrl');
  const template = inject('templateDatabase');
  return createDatabaseOnServer(serverUrl, 'contacts_test', `template ${pg.escapeIdentifier(template)}`);
}

/** An empty database (no migrations), for testing the migrations themselves. */
export async function createEmptyTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('databaseServerUrl');
  return createDatabaseOnServer(serverUrl, 'contacts_empty', '');
}

/** A database of a random name with `prefix` on the test server (`options`: after `create database <name>`). */
async function createDatabaseOnServer(serverUrl: string, prefix: string, options: string): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${pg.escapeIdentifier(name)} ${options}`);
  const url = withDatabaseName(serverUrl, name);
  const db = createDatabase(url, { poolMax: 10, applicationName: 'contacts-test' });
  return {
    url,
    db,
    async drop() {
      await db.destroy();
      await adminQuery(serverUrl, `drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    },
  };
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    // Cloning a template fails while another session is connected to it; retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(sql);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await client.end();
  }
}
