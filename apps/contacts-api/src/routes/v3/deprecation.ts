/** When v3 was deprecated (the release of v4) and when it goes away. */
export const V3_DEPRECATED_AT = new Date('2026-11-22T00:00:00Z');
export const V3_SUNSET_AT = new Date('2027-12-01T00:00:00Z');

/**
 * The headers every v3 response carries, errors included: `Deprecation` (RFC 9745, a
 * structured-field Date: `@` and Unix seconds), `Sunset` (RFC 8594, an HTTP-date) and links to
 * the successor version (RFC 5829 `successor-version`: the v4 contacts) and to the documentation
 * of the deprecation (RFC 9745 `deprecation`: the API documentation, which describes both).
 */
export function deprecationHeaders(publicUrl: string): Record<string, string> {
  const base = publicUrl.replace(/\/$/, '');
  return {
    Deprecation: `@${Math.floor(V3_DEPRECATED_AT.getTime() / 1000)}`,
    Sunset: V3_SUNSET_AT.toUTCString(),
    Link: `<${base}/v4/contacts>; rel="successor-version", <${base}/docs>; rel="deprecation"; type="text/html"`,
  };
}
