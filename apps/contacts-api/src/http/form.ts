import qs from 'qs';
import { ApiError } from './errors';

/** The most fields (and list entries) a URL-encoded form may hold; qs's own default. */
export const MAX_FORM_FIELDS = 1000;

/** A form or multipart body with more fields than is read: 413, never fields silently dropped. */
export const tooManyFields = () => new ApiError(413, 'payload_too_large', 'Too many fields.');

/**
 * An application/x-www-form-urlencoded body, already read as UTF-8 text, parsed by qs (nested
 * keys such as `operations[0][op]` included). Past MAX_FORM_FIELDS qs would drop the rest
 * silently, so it is told to throw: 413, as multipart answers. Every key and value is decoded
 * strictly (decodeFormComponent).
 */
export function parseForm(text: string): Record<string, unknown> {
  try {
    return qs.parse(text, {
      parameterLimit: MAX_FORM_FIELDS,
      arrayLimit: MAX_FORM_FIELDS,
      throwOnLimitExceeded: true,
      decoder: decodeFormComponent,
    });
  } catch (error) {
    // qs reports its limits, and only those, as RangeErrors.
    if (error instanceof RangeError) throw tooManyFields();
    throw error;
  }
}

/**
 * One form component: `+` is a space, `%XX` a byte, and the bytes must be UTF-8 (qs's default
 * decoder kept `Jos%E9` as it was written). A `%` not followed by two hex digits stays a `%`,
 * as in the WHATWG URL standard's form reading, so `100%` is still "100%".
 */
function decodeFormComponent(component: string): string {
  const escaped = component.replaceAll('+', ' ').replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
  try {
    return decodeURIComponent(escaped);
  } catch {
    throw new ApiError(
      400,
      'bad_request',
      'The form is not valid UTF-8: a percent-encoded value does not decode to UTF-8 text.',
    );
  }
}
