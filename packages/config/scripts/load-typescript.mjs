// Every script that runs the TypeScript sources loads tsx through this file: `pnpm start`,
// `pnpm cli` and the services' `dev`. tsx keeps what it compiles in a cache under the system's
// temporary folder (TMPDIR, else /tmp); when that folder cannot be written, tsx stopped with a
// stack trace before any of the product's code had run. Without its cache tsx works (compiling
// each start afresh), and the product then says in one paragraph what it needs the folder for
// (apps/contacts-api/src/http/upload-spool.ts), or runs if it does not need it.
import { accessSync, constants, statSync } from 'node:fs';
import { tmpdir } from 'node:os';

function temporaryFolderIsWritable() {
  try {
    accessSync(tmpdir(), constants.W_OK | constants.X_OK);
    return statSync(tmpdir()).isDirectory();
  } catch {
    return false;
  }
}

if (!temporaryFolderIsWritable()) process.env.TSX_DISABLE_CACHE = '1';
await import('tsx');
