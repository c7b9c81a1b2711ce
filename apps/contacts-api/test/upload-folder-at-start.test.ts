import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

describe('the contacts API where uploads cannot be kept on disk', () => {
  const tmp = process.env.TMPDIR;
  const notAFolder = path.join(tmpdir(), `contacts-not-a-folder-${process.pid}`);
  afterEach(async () => {
    await rm(notAFolder, { force: true });
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
    vi.resetModules();
  });

  it('refuses to start, naming the folder, the cause and TMPDIR (a ConfigError: one paragraph, exit 1)', async () => {
    await writeFile(notAFolder, '');
    process.env.TMPDIR = notAFolder;
    // A module graph of its own: the upload folder is made once per process, at first use.
    vi.resetModules();
    const { ConfigError } = await import('@contacts/config');
    const { createContactsApi } = await import('../src/app');
    const refusal = await createContactsApi({
      // Never reached: the folder is made before anything else.
      db: undefined as never,
      config: undefined as never,
      logger: undefined as never,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as Error).message).toBe(
      `uploaded files are kept on disk until they are stored, in a folder made under the temporary folder, and ${notAFolder} is a file, or lies under one, not a folder (ENOTDIR). Set TMPDIR to a folder this user can write in.`,
    );
  });
});
