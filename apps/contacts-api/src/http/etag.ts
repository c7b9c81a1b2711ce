import { hash } from 'node:crypto';

/** A strong ETag for a representation: a hash of exactly what is sent. */
export function etagOf(representation: unknown): string {
  return etagOfJson(JSON.stringify(representation));
}

/** The same, for a representation already serialised (so that it is serialised only once). */
export function etagOfJson(json: string): string {
  return `"${hash('sha256', json, 'base64url').slice(0, 32)}"`;
}

/**
 * RFC 9110 §13.1.1 If-Match: `*` matches any current representation; otherwise the header is a
 * list of entity-tags, and it matches when any one of them is strongly equal to `current` (a
 * weak tag never is). Anything that is no such list matches nothing.
 */
export function ifMatchSatisfied(header: string, current: string): boolean {
  if (header.trim() === '*') return true;
  return entityTags(header)?.includes(current) ?? false;
}

/**
 * One element of an entity-tag list (RFC 9110 §8.8.3, §5.6.1): optional whitespace, an optional
 * tag (`W/` kept, so a weak tag equals no strong one), then a comma or the end. The opaque part
 * may hold commas, so the list cannot be split at commas; empty elements are allowed.
 */
const LIST_ELEMENT = /[\t ]*(?:((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")[\t ]*)?(,|$)/y;

/** The entity-tags of a list, or undefined when the header is no such list. */
function entityTags(header: string): string[] | undefined {
  const tags: string[] = [];
  LIST_ELEMENT.lastIndex = 0;
  for (;;) {
    const element = LIST_ELEMENT.exec(header);
    if (!element) return undefined;
    if (element[1] !== undefined) tags.push(element[1]);
    if (element[2] === '') return tags;
  }
}
