import { rmSync } from 'node:fs';
import { mkdtemp, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvironmentError, folderProblem } from '@contacts/config';

/**
 * Uploaded files wait on disk, in a folder of this process's own under the system's temporary
 * folder (TMPDIR, else /tmp), until the request that sent them is answered: an upload arrives as
 * slowly as its client sends it, and held in memory, twenty of them at 12 MB took half a gigabyte
 * of a process whose bound is 200 MB. A file is brought into memory only when it is used, under
 * the upload memory budget (upload-memory.ts), and deleted with its request.
 */
let folder: Promise<string> | undefined;

/** This process's upload folder, made at first use (mode 0700) and removed when the process exits. */
export function uploadFolder(): Promise<string> {
  folder ??= mkdtemp(join(tmpdir(), 'contacts-api-uploads-')).then(
    (made) => {
      process.once('exit', () => rmSync(made, { recursive: true, force: true }));
      return made;
    },
    (error: NodeJS.ErrnoException) => {
      folder = undefined;
      throw new EnvironmentError(
        `uploaded files are kept on disk until they are stored, in a folder made under the temporary folder, and ${folderProblem(tmpdir(), error.code ?? error.message)}. Set TMPDIR to a folder this user can write in.`,
      );
    },
  );
  return folder;
}

/** Deletes uploaded files once their request is answered; one already gone is no error. */
export async function discardUploads(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map((path) => unlink(path).catch(() => undefined)));
}
