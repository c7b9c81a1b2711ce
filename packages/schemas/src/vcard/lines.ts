/**
 * The line-level grammar of vCard (RFC 6350 §3.2, §3.3, §3.4; RFC 2426 for 3.0): folding,
 * escaping and content lines, shared by the writer and the reader.
 */

const MAX_LINE_OCTETS = 75;

/**
 * Folds a content line so that no physical line exceeds 75 octets (CRLF excluded), breaking
 * between characters, never inside a UTF-8 sequence (nor between the halves of a surrogate
 * pair); each continuation starts with one space, which counts toward its 75.
 */
export function foldLine(line: string): string {
  if (Buffer.byteLength(line) <= MAX_LINE_OCTETS) return `${line}\r\n`;
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  for (const character of line) {
    const size = Buffer.byteLength(character);
    const room = parts.length === 0 ? MAX_LINE_OCTETS : MAX_LINE_OCTETS - 1;
    if (octets + size > room) {
      parts.push(current);
      current = '';
      octets = 0;
    }
    current += character;
    octets += size;
  }
  parts.push(current);
  return `${parts.join('\r\n ')}\r\n`;
}

/** Joins folded lines back (a line break followed by one space or tab continues the line). */
export function unfold(text: string): string[] {
  return text
    .replace(/\r\n|\r/g, '\n')
    .replace(/\n[ \t]/g, '')
    .split('\n');
}

/** Text already unfolded, split at its line breaks (CRLF, or a bare LF or CR). */
export function splitLines(text: string): string[] {
  return text.replace(/\r\n|\r/g, '\n').split('\n');
}

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Unfolds the octets of a vCard before they are decoded (RFC 6350 §3.2): a line break (CRLF, or a
 * bare LF or CR, as `unfold` reads them) followed by one space or tab is removed, in one pass.
 * A writer that folds by octets may break inside a UTF-8 sequence, which is valid UTF-8 only once
 * rejoined; decoded line by line first, such a file was refused as not UTF-8.
 */
export function unfoldOctets(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let length = 0;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (byte === CR || byte === LF) {
      const next = byte === CR && bytes[index + 1] === LF ? index + 2 : index + 1;
      if (bytes[next] === SPACE || bytes[next] === TAB) {
        index = next;
        continue;
      }
    }
    out[length++] = byte;
  }
  return out.subarray(0, length);
}

/**
 * A text value, escaped as RFC 6350 §3.4 requires: backslash, comma and newlines. A semicolon is
 * escaped only inside the components of a structured value (see `structured`); readers of a
 * single text value (FN) take `\;` literally.
 */
export function escapeText(value: string): string {
  return value.replace(/[\\,]/g, (character) => `\\${character}`).replace(/\r\n|\r|\n/g, '\\n');
}

/** The components of a structured value (N, ADR, ORG), each escaped (semicolons too), joined with ';'. */
export function structured(components: ReadonlyArray<string | null>): string {
  return components.map((component) => escapeText(component ?? '').replaceAll(';', '\\;')).join(';');
}

/** Undoes escapeText (also the `\:` some writers emit, and `\N`). */
export function unescapeText(value: string): string {
  return value.replace(/\\([\\,;:nN])/g, (_, character: string) =>
    character === 'n' || character === 'N' ? '\n' : character,
  );
}

/** Splits at separators not escaped with a backslash, leaving the escapes in place. */
export function splitUnescaped(value: string, separator: ',' | ';'): string[] {
  const parts: string[] = [];
  let current = '';
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index]!;
    if (character === '\\' && index + 1 < value.length) {
      current += character + value[index + 1];
      index += 1;
    } else if (character === separator) {
      parts.push(current);
      current = '';
    } else current += character;
  }
  parts.push(current);
  return parts;
}

/** One unfolded content line: `[group.]NAME *(;PARAM) : VALUE`. Names and parameter names upper-cased. */
export interface ContentLine {
  name: string;
  params: Map<string, string[]>;
  value: string;
}

/**
 * Parses a content line; undefined when it is not one. Parameter values may be quoted (and then
 * hold ':' and ';'); a bare parameter without '=' (vCard 2.1/3.0 `TEL;HOME:`) counts as a TYPE.
 */
export function parseContentLine(line: string): ContentLine | undefined {
  let index = 0;
  const nameMatch = /^(?:[A-Za-z0-9-]+\.)?([A-Za-z0-9-]+)/.exec(line);
  if (!nameMatch) return undefined;
  const name = nameMatch[1]!.toUpperCase();
  index = nameMatch[0].length;
  const params = new Map<string, string[]>();
  while (line[index] === ';') {
    index += 1;
    const keyMatch = /^[A-Za-z0-9-]+/.exec(line.slice(index));
    if (!keyMatch) return undefined;
    index += keyMatch[0].length;
    let key = keyMatch[0].toUpperCase();
    const values: string[] = [];
    if (line[index] === '=') {
      index += 1;
      for (;;) {
        let value = '';
        if (line[index] === '"') {
          const end = line.indexOf('"', index + 1);
          if (end < 0) return undefined;
          value = line.slice(index + 1, end);
          index = end + 1;
        } else {
          while (index < line.length && !',;:'.includes(line[index]!)) value += line[index++];
        }
        values.push(value);
        if (line[index] !== ',') break;
        index += 1;
      }
    } else {
      values.push(key);
      key = 'TYPE';
    }
    params.set(key, [...(params.get(key) ?? []), ...values]);
  }
  if (line[index] !== ':') return undefined;
  return { name, params, value: line.slice(index + 1) };
}
