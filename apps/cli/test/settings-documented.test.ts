import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS_PROCESSES, settingsReadBy } from '../src/settings-registry';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/**
 * Names in the README's Configuration table that no process reads, each with the reason it is
 * documented there all the same. Anything else in the table must be a setting the code reads.
 */
const DOCUMENTED_BUT_NOT_READ: Record<string, string> = {
  TEST_DATABASE_URL: "the test suites' PostgreSQL server (packages/db/src/testing/global-setup.ts), no process's",
  TMPDIR:
    "read by Node.js's os.tmpdir() for the contacts API's upload folder (http/upload-spool.ts), not by a settings reader",
};

/** The variable names in the first column of the README's "## Configuration" table. */
function configurationTableNames(readme: string): string[] {
  const start = readme.indexOf('\n## Configuration\n');
  expect(start, 'the README has a Configuration section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  expect(rows.length, 'the Configuration table has rows').toBeGreaterThan(0);
  return rows.flatMap((row) => {
    const firstCell = row.split('|')[1] ?? '';
    return [...firstCell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  });
}

let dataDir: string;
/** Every setting any process reads (a development environment: secrets are generated into a scratch DATA_DIR). */
let settings: Set<string>;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-settings-registry-'));
  settings = new Set();
  for (const process of SETTINGS_PROCESSES) {
    for (const name of await settingsReadBy(process, { DATA_DIR: dataDir })) settings.add(name);
  }
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

describe('the settings the code reads, and their documentation', () => {
  it('are all environment-variable names (the registry records nothing else)', () => {
    expect([...settings].filter((name) => !/^[A-Z][A-Z0-9_]*$/.test(name))).toEqual([]);
    // A sanity check of the registry itself: one setting of each process.
    for (const name of ['ACCESS_TOKEN_TTL', 'API_RATE_LIMIT', 'CLI_DEBUG', 'AUTH_INTERNAL_URL']) {
      expect(settings, name).toContain(name);
    }
  });

  it("are each in the README's Configuration table, which names no other", async () => {
    const documented = configurationTableNames(await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(
      [...settings].filter((name) => !documented.includes(name)),
      'read but not in the table',
    ).toEqual([]);
    expect(
      documented.filter((name) => !settings.has(name) && !Object.hasOwn(DOCUMENTED_BUT_NOT_READ, name)),
      'in the table but read by no process',
    ).toEqual([]);
    expect(documented.length, 'a variable listed twice').toBe(new Set(documented).size);
    // An exception that became a setting (or left the table) goes from the list.
    for (const name of Object.keys(DOCUMENTED_BUT_NOT_READ)) {
      expect(documented, name).toContain(name);
      expect(settings, name).not.toContain(name);
    }
  });
});
