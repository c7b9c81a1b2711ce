import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * `mkdir -p`, one level at a time. Node's `mkdir(…, { recursive: true })` never returns on a
 * path under a folder that refuses new entries with ENOENT, as /proc does (DATA_DIR=/proc/x hung
 * the start); here that ENOENT is thrown like any other refusal, for the caller to name.
 */
export function makeDirectory(directory: string, mode?: number): void {
  const missing: string[] = [];
  for (let current = path.resolve(directory); !existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, mode === undefined ? {} : { mode });
    } catch (error) {
      // Made by another process meanwhile (two services starting at once): just as good.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
