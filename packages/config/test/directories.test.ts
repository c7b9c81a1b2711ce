import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../src/directories';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'directories-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('makeDirectory (DATA_DIR and the folders under it)', () => {
  it('makes every missing level, with the mode asked for, and leaves an existing folder as it is', () => {
    const deep = path.join(root, 'a', 'b', 'c');
    makeDirectory(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(deep).mode & 0o777).toBe(0o700);
    expect(() => makeDirectory(deep)).not.toThrow();
  });

  it.runIf(existsSync('/proc/self'))(
    "throws ENOENT under /proc, where Node's recursive mkdir never returns (DATA_DIR=/proc/x hung the start)",
    () => {
      expect(() => makeDirectory('/proc/not-a-process/data')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    },
  );
});
