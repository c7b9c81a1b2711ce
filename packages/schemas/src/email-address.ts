/**
 * E-mail addresses as the original service took them (Laravel's `email` rule, which validates by
 * RFC 5322 rather than by a narrower pattern): an addr-spec whose local part is a dot-atom or a
 * quoted string, and whose domain is one or more labels (`localhost` included) or an address
 * literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`), with the UTF-8 characters RFC 6531 allows in both
 * (`üser@exämple.com`). Whitespace and control characters are refused outside quotes.
 */

/** A character of RFC 6532's UTF-8 non-ASCII that is neither whitespace nor a control or format character. */
const WIDE = String.raw`[^\x00-\x7F\s\p{C}]`;
const ATEXT = `(?:[A-Za-z0-9!#$%&'*+\\-/=?^_${'`'}{|}~]|${WIDE})`;
const DOT_ATOM = `${ATEXT}+(?:\\.${ATEXT}+)*`;
const QUOTED = String.raw`"(?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\[\x20-\x7E]|${WIDE})*"`;
const LABEL_END = `(?:[A-Za-z0-9]|${WIDE})`;
const LABEL = `${LABEL_END}(?:(?:[A-Za-z0-9-]|${WIDE}){0,61}${LABEL_END})?`;
const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = String.raw`${OCTET}(?:\.${OCTET}){3}`;
const ADDRESS_LITERAL = String.raw`\[(?:${IPV4}|IPv6:[0-9A-Fa-f:.]{2,45})\]`;
const DOMAIN = `(?:${LABEL}(?:\\.${LABEL})*|${ADDRESS_LITERAL})`;

const ADDR_SPEC = new RegExp(`^(${DOT_ATOM}|${QUOTED})@${DOMAIN}$`, 'u');

/** RFC 5321 §4.5.3.1.1: a local part holds at most 64 octets. */
export const MAX_LOCAL_PART_OCTETS = 64;

export function isEmailAddress(value: string): boolean {
  const match = ADDR_SPEC.exec(value);
  return match !== null && Buffer.byteLength(match[1] as string) <= MAX_LOCAL_PART_OCTETS;
}
