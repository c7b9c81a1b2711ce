import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this package that holds pnpm-workspace.yaml. */
export function repositoryRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'pnpm-workspace.yaml'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/** Where local state lives (embedded database, generated development secrets). Git-ignored. */
export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  // Empty is unset, as for every setting (an empty DATA_DIR meant the current directory).
  return path.resolve(env.DATA_DIR || path.join(repositoryRoot(), '.data'));
}
