import { hash } from 'node:crypto';

/** A strong ETag for a representation: a hash of exactly what is sent. */
export function etagOf(representation: unknown): string {
  return etagOfJson(JSON.stringify(representation));
}

/** The same, for a representation already serialised (so that it is serialised only once). */
export function etagOfJson(json: string): string {
  return `"${hash('sha256', json, 'base64url').slice(0, 32)}"`;
}

/** RFC 9110 §13.1.1 If-Match: "*" or a list of entity tags compared strongly. */
export function ifMatchSatisfied(header: string, current: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  return value
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => !tag.startsWith('W/') && tag === current);
}
