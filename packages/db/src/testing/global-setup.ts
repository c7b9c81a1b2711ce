import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase, withDatabaseName } from '../connection';
import { startEmbeddedDatabase } from '../embedded';
import { migrateLatest } from '../migrate';

/**
 * vitest globalSetup: finds a PostgreSQL server (TEST_DATABASE_URL, DATABASE_URL, or an
 * embedded one in a temporary folder), creates a migrated template database on it, and
 * hands both to the test files, which clone the template (see createTestDatabase).
 */
interface ProvideTarget {
  provide(key: 'databaseServerUrl' | 'templateDatabase', value: string): void;
}

export default async function setup(project: ProvideTarget): Promise<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  let serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!serverUrl) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-test-pg-'));
    // mkdtemp makes it 0700: run as root, the data would go to RELOCATION_ROOT (the `postgres`
    // user cannot reach it), outside the folder removed below. Ours, so opened to keep it inside.
    await chmod(dataDir, 0o755);
    // Below the kernel's ephemeral range (32768–60999), where outgoing connections and port-0
    // servers get theirs, and below the ports the CLI's launcher tests draw (26000–31999).
    const port = 20_000 + Math.floor(Math.random() * 5_000);
    const server = await startEmbeddedDatabase({ dataDir, port, mode: 'own' });
    serverUrl = server.url;
    cleanups.push(async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
  }

  const template = `contacts_template_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${pg.escapeIdentifier(template)}`);
  const db = createDatabase(withDatabaseName(serverUrl, template), { poolMax: 2 });
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  cleanups.unshift(async () => {
    await admin.query(`drop database if exists ${pg.escapeIdentifier(template)} with (force)`);
    await admin.end();
  });

  project.provide('databaseServerUrl', serverUrl);
  project.provide('templateDatabase', template);
  return async () => {
    for (const cleanup of cleanups) await cleanup();
  };
}
