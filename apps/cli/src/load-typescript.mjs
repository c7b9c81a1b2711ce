// `pnpm start` and `pnpm cli` run the TypeScript sources through tsx, which keeps what it compiles
// in a cache under the system's temporary folder (TMPDIR, else /tmp). When that folder cannot be
// written, tsx stops with a stack trace before any of the product's code has run. Without its
// cache tsx works (compiling each start afresh), and the product then says in one paragraph what
// it needs the folder for (apps/contacts-api/src/http/upload-spool.ts) or runs if it does not.
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
