import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase, type Database, migrateLatest, startEmbeddedDatabase, withDatabaseName } from '@contacts/db';
import pg from 'pg';

/**
 * A PostgreSQL server for the run (BENCH_DATABASE_URL, TEST_DATABASE_URL, DATABASE_URL, else an
 * embedded one in a temporary folder) and a fresh, migrated database on it, dropped at the end.
 */
export interface BenchDatabase {
  url: string;
  db: Database;
  serverKind: 'external' | 'embedded';
  version: string;
  drop(): Promise<void>;
}

export async function createBenchDatabase(env: NodeJS.ProcessEnv): Promise<BenchDatabase> {
  let serverUrl = env.BENCH_DATABASE_URL ?? env.TEST_DATABASE_URL ?? env.DATABASE_URL;
  let stopServer = async () => {};
  if (!serverUrl) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-bench-pg-'));
    // mkdtemp makes it 0700: run as root, the data would go to RELOCATION_ROOT, outside the folder removed below.
    await chmod(dataDir, 0o755);
    const server = await startEmbeddedDatabase({
      dataDir,
      port: 56_000 + Math.floor(Math.random() * 4_000),
      mode: 'own',
    });
    serverUrl = server.url;
    stopServer = async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  const name = `contacts_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${pg.escapeIdentifier(name)}`);
  const url = withDatabaseName(serverUrl, name);
  const db = createDatabase(url, { poolMax: 4, applicationName: 'bench' });
  await migrateLatest(db);
  const version = String((await db.raw('show server_version')).rows[0].server_version);
  return {
    url,
    db,
    serverKind: env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL || env.DATABASE_URL ? 'external' : 'embedded',
    version,
    async drop() {
      await db.destroy();
      await admin(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      await stopServer();
    },
  };
}

/**
 * Bulk-loads contacts, `count` for each member, in one statement each (generate_series). The
 * secondary indexes are dropped first and rebuilt from their own definitions afterwards, which
 * is several times faster than maintaining them row by row.
 */
export async function loadContacts(db: Database, counts: ReadonlyMap<number, number>): Promise<void> {
  const { rows: indexes } = await db.raw<{ rows: Array<{ indexname: string; indexdef: string }> }>(
    `select indexname, indexdef from pg_indexes
     where schemaname = current_schema() and tablename = 'contacts' and indexname <> 'contacts_pkey'`,
  );
  for (const index of indexes) await db.raw(`drop index ${pg.escapeIdentifier(index.indexname)}`);
  for (const [ownerId, count] of counts) {
    await db.raw(
      `insert into contacts (owner_id, name, email, company_name, personal_number, city, country, join_date)
       select ?, 'Contact ' || g, 'contact-' || g || '@example.test', 'Company ' || (g % 997),
              '+336' || lpad((g % 100000000)::text, 8, '0'), 'City ' || (g % 101), 'France',
              date '2020-01-01' + (g % 1500)
       from generate_series(1, ?) as g`,
      [ownerId, count],
    );
  }
  await db.transaction(async (trx) => {
    await trx.raw("set local maintenance_work_mem = '256MB'");
    for (const index of indexes) await trx.raw(index.indexdef);
  });
  await db.raw('analyze');
}

/** The first and last id of a member's contacts. */
export async function contactIdRange(db: Database, ownerId: number): Promise<{ first: number; last: number }> {
  // pg returns the aggregates as it likes (numbers, or strings for bigints): typed here, converted below.
  const range = (await db('contacts').where({ owner_id: ownerId }).min('id as first').max('id as last').first()) as
    | { first: number | string | null; last: number | string | null }
    | undefined;
  return { first: Number(range?.first), last: Number(range?.last) };
}

/** The id at a position (0-based) of a member's contacts in id order. */
export async function contactIdAt(db: Database, ownerId: number, position: number): Promise<number> {
  const row = await db('contacts').where({ owner_id: ownerId }).orderBy('id').offset(position).first('id');
  return Number(row?.id);
}
