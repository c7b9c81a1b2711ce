import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planLayout, RELOCATION_ROOT, relocatedDataDir } from '../src/embedded-postgres-process';
import { dataDirectory, repositoryRoot } from '../src/paths';

/** Where the embedded PostgreSQL keeps its data, and what that does to the folder the user gave (DATA_DIR). */
describe('the embedded database layout', () => {
  let dataDir: string | undefined;
  afterEach(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it.each([
    ['a shared folder with the sticky bit', 0o1777],
    ['a private folder', 0o700],
    ['an ordinary folder', 0o755],
  ])('never changes the mode of DATA_DIR: %s (%o)', async (_kind, mode) => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'contacts-layout-'));
    await chmod(dataDir, mode);
    const layout = await planLayout(dataDir);
    expect((await stat(dataDir)).mode & 0o7777).toBe(mode);
    // Run as root, PostgreSQL runs as `postgres`: its data stays in DATA_DIR only if that user can reach it.
    const inPlace = path.join(dataDir, 'postgres');
    const expected = userInfo().uid === 0 && mode === 0o700 ? relocatedDataDir(dataDir) : inPlace;
    expect(layout.pgdata).toBe(expected);
    // The product's own folder above relocated data must stay traversable for `postgres`.
    if (expected !== inPlace) expect((await stat(RELOCATION_ROOT)).mode & 0o777).toBe(0o755);
  });
});

describe('DATA_DIR', () => {
  it('is the repository’s .data when unset or empty (empty meant the current directory: secrets in the checkout)', () => {
    const fallback = path.join(repositoryRoot(), '.data');
    expect(dataDirectory({})).toBe(fallback);
    expect(dataDirectory({ DATA_DIR: '' })).toBe(fallback);
    expect(dataDirectory({ DATA_DIR: '/srv/contacts' })).toBe('/srv/contacts');
  });
});
