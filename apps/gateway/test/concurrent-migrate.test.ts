import { spawn } from 'node:child_process';
import { pendingMigrations } from '@contacts/db';
import { createEmptyTestDatabase, type TestDatabase } from '@contacts/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/replicas';

/** The deployment's migrate step (`pnpm cli migrate latest`), run by several machines at once. */
let database: TestDatabase;
beforeAll(async () => {
  database = await createEmptyTestDatabase();
});
afterAll(async () => database?.drop());

function migrateLatest(url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/cli/src/cli.ts', 'migrate', 'latest'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', DATABASE_URL: url },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('migrate latest', () => {
  it('run by 3 processes at once on an empty database, applies each migration exactly once', async () => {
    const runs = await Promise.all(Array.from({ length: 3 }, () => migrateLatest(database.url)));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const applied = runs.flatMap((run) => (JSON.parse(run.stdout) as { applied: string[] }).applied);
    const rows = (await database.db('knex_migrations').select('name')) as Array<{ name: string }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(applied.sort()).toEqual(rows.map((row) => row.name).sort());
    expect(runs.filter((run) => (JSON.parse(run.stdout) as { applied: string[] }).applied.length === 0)).toHaveLength(
      2,
    );
    expect(await pendingMigrations(database.db)).toEqual([]);
  });
});
