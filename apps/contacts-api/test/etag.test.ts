import { describe, expect, it } from 'vitest';
import { etagOf, etagOfJson, ifMatchSatisfied, ifNoneMatchSatisfied, jsonWithEtag } from '../src/http/etag';

/** RFC 9110 §13.1.1 If-Match, evaluated against the contact's current (strong) ETag. */
describe('ifMatchSatisfied', () => {
  const current = etagOf({ id: 1, name: 'Ada' });

  it('matches the current entity tag alone, or anywhere in a list, whatever the spacing', () => {
    for (const header of [
      current,
      `"a", ${current}`,
      `"a",${current}`,
      `${current} , "b"`,
      `  "a" ,  ${current}  `,
      `"a", "b", ${current}`,
    ]) {
      expect(ifMatchSatisfied(header, current), header).toBe(true);
    }
  });

  it('matches any current representation with *', () => {
    expect(ifMatchSatisfied('*', current)).toBe(true);
    expect(ifMatchSatisfied(' * ', current)).toBe(true);
  });

  it('does not match other tags, weak tags (the comparison is strong), or what is no list of entity tags', () => {
    for (const header of [
      '"a"',
      '"a", "b"',
      `W/${current}`,
      `"a", W/${current}`,
      current.slice(1, -1),
      '',
      ',',
      `"a" ${current}`,
    ]) {
      expect(ifMatchSatisfied(header, current), header).toBe(false);
    }
  });

  it('matches a tag whose opaque part holds a comma, which a split at commas cut in two', () => {
    expect(ifMatchSatisfied('"x", "a,b"', '"a,b"')).toBe(true);
    expect(ifMatchSatisfied('"a,b"', '"a"')).toBe(false);
  });
});

/** RFC 9110 §13.1.2 If-None-Match: the condition fails when a listed tag is weakly equal to the current one, or for *. */
describe('ifNoneMatchSatisfied', () => {
  const current = etagOf({ id: 1, name: 'Ada' });

  it('fails for *, and for the current tag alone or in a list, weak or strong (weak comparison)', () => {
    for (const header of [
      '*',
      ' * ',
      current,
      `W/${current}`,
      `"a", ${current}`,
      `"a",W/${current}`,
      `${current} , "b"`,
    ]) {
      expect(ifNoneMatchSatisfied(header, current), header).toBe(false);
    }
    expect(ifNoneMatchSatisfied(current, `W/${current}`)).toBe(false);
  });

  it('holds for other tags, and for what is no list of entity tags (ignored)', () => {
    for (const header of ['"a"', '"a", W/"b"', current.slice(1, -1), '', ',', `"a" ${current}`, '**']) {
      expect(ifNoneMatchSatisfied(header, current), header).toBe(true);
    }
  });
});

describe('jsonWithEtag', () => {
  it("adds the object's own ETag as a last member, leaving the rest of the text as it was", () => {
    const json = JSON.stringify({ id: 1, name: 'Ada "A" Lovelace' });
    const tagged = jsonWithEtag(json);
    expect(JSON.parse(tagged)).toEqual({ id: 1, name: 'Ada "A" Lovelace', etag: etagOfJson(json) });
    expect(tagged.startsWith(json.slice(0, -1))).toBe(true);
    expect(JSON.parse(jsonWithEtag('{}'))).toEqual({ etag: etagOfJson('{}') });
  });
});
