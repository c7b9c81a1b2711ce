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

/** Why a folder could not be made or written, from the error's code, in words (the code kept for searching). */
export function folderProblem(folder: string, code: string | undefined): string {
  switch (code) {
    case 'ENOTDIR':
    case 'EEXIST':
      return `${folder} is a file, or lies under one, not a folder (${code})`;
    case 'EACCES':
    case 'EPERM':
      return `this user may not write in ${folder} (${code})`;
    case 'EROFS':
      return `${folder} is on a read-only file system (${code})`;
    case 'ENOSPC':
      return `the disk holding ${folder} is full (${code})`;
    case 'ENOENT':
      return `${folder} cannot be created there (${code})`;
    default:
      return `${folder} cannot be used (${code ?? 'unknown error'})`;
  }
}
