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
 * A JSON object's text with its own ETag (etagOfJson of that very text) added as a last member,
 * `etag`: what the change feed and a batch answer for a contact, equal to the ETag header GET
 * sends for the same JSON. Spliced in before the closing brace, so the object is serialised once.
 */
export function jsonWithEtag(objectJson: string): string {
  const members = objectJson.slice(0, -1);
  const separator = members === '{' ? '' : ',';
  return `${members}${separator}"etag":${JSON.stringify(etagOfJson(objectJson))}}`;
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
 * RFC 9110 §13.1.2 If-None-Match: false when the header is `*` (there is a current
 * representation) or lists an entity-tag weakly equal to `current` (`W/` ignored on both sides);
 * true otherwise. A header that is no entity-tag list names nothing, so it holds.
 */
export function ifNoneMatchSatisfied(header: string, current: string): boolean {
  if (header.trim() === '*') return false;
  const opaque = weakless(current);
  return !(entityTags(header)?.some((tag) => weakless(tag) === opaque) ?? false);
}

/**
 * A write's If-Match and If-None-Match (RFC 9110 §13.2.2: If-Match first) as the precondition
 * the domain checks against the current record under its row lock (domain/contacts.ts
 * UpdateOptions.precondition): false → 412 "has changed"; a string → 412 with that message.
 * Nothing when neither header was sent. `etagOfCurrent`: the ETag the record is answered with.
 */
export function writePrecondition<T>(
  headers: { ifMatch: string; ifNoneMatch: string },
  etagOfCurrent: (current: T) => string,
): { precondition?: (current: T) => boolean | string } {
  const { ifMatch, ifNoneMatch } = headers;
  if (!ifMatch && !ifNoneMatch) return {};
  return {
    precondition: (current) => {
      const etag = etagOfCurrent(current);
      if (ifMatch && !ifMatchSatisfied(ifMatch, etag)) return false;
      if (ifNoneMatch && !ifNoneMatchSatisfied(ifNoneMatch, etag))
        return 'If-None-Match names the current contact (or is *): nothing was written.';
      return true;
    },
  };
}

/**
 * The answer RFC 9110 §13.2.2 gives a GET or HEAD of a representation whose ETag is `current`,
 * given its If-Match and If-None-Match (empty or absent: not sent): 412 when If-Match fails, else
 * 304 when If-None-Match fails, else undefined (answer the representation).
 */
export function readPrecondition(
  ifMatch: string | undefined,
  ifNoneMatch: string | undefined,
  current: string,
): 304 | 412 | undefined {
  if (ifMatch && !ifMatchSatisfied(ifMatch, current)) return 412;
  if (ifNoneMatch && !ifNoneMatchSatisfied(ifNoneMatch, current)) return 304;
  return undefined;
}

const weakless = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

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
