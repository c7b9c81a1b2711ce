import type { ContactRecordLike } from '../contact-fields';
import { contactImageUrl, contactUrl, rfc3339 } from '../contact-v4';
import { escapeText, foldLine, structured } from './lines';

/**
 * A contact as a vCard 4.0 (RFC 6350). What each property carries:
 *
 * | vCard                      | contact                                                        |
 * | -------------------------- | -------------------------------------------------------------- |
 * | UID                        | `<public URL>/v4/contacts/<id>`: stable, and where to read it   |
 * | FN                         | name                                                           |
 * | N                          | name, split at its last space: family name; given names        |
 * | EMAIL                      | email                                                          |
 * | TEL;TYPE=home / TYPE=work  | personal_number / work_number                                  |
 * | ORG                        | company_name                                                   |
 * | URL                        | website                                                        |
 * | ADR                        | ;;address;city;state;zipcode;country                           |
 * | CATEGORIES                 | the business category's name                                   |
 * | X-CONTACTS-JOIN-DATE       | join_date (YYYY-MM-DD)                                         |
 * | X-CONTACTS-GROUP-ID        | group_id (export only: a group is a membership, not data)      |
 * | PHOTO                      | image_url, when there is an image (a URL needing the token)    |
 * | REV                        | updated_at                                                     |
 */
export function toVCard(record: ContactRecordLike, options: { publicUrl: string }): string {
  const lines = [
    'BEGIN:VCARD',
    'VERSION:4.0',
    `UID:${contactUrl(options.publicUrl, record.id)}`,
    `FN:${escapeText(record.name)}`,
  ];
  lines.push(`N:${structured(splitName(record.name))};;;`);
  if (record.email) lines.push(`EMAIL:${escapeText(record.email)}`);
  if (record.personal_number) lines.push(`TEL;TYPE=home:${escapeText(record.personal_number)}`);
  if (record.work_number) lines.push(`TEL;TYPE=work:${escapeText(record.work_number)}`);
  if (record.company_name) lines.push(`ORG:${structured([record.company_name])}`);
  if (record.website) lines.push(`URL:${record.website}`);
  const address = [record.street, record.city, record.state, record.zipcode, record.country];
  if (address.some((part) => part)) lines.push(`ADR:${structured([null, null, ...address])}`);
  if (record.business_category_name) lines.push(`CATEGORIES:${escapeText(record.business_category_name)}`);
  if (record.join_date) lines.push(`X-CONTACTS-JOIN-DATE:${record.join_date}`);
  if (record.group_id !== null) lines.push(`X-CONTACTS-GROUP-ID:${record.group_id}`);
  if (record.image_sha256 !== null) lines.push(`PHOTO:${contactImageUrl(options.publicUrl, record.id)}`);
  lines.push(`REV:${rfc3339(record.updated_at).replace(/[-:]/g, '').replace(/\.\d+/, '')}`);
  lines.push('END:VCARD');
  return lines.map(foldLine).join('');
}

/** [family, given]: the last word is taken as the family name; a single word is a given name. */
function splitName(name: string): [string, string] {
  const trimmed = name.trim();
  const space = trimmed.lastIndexOf(' ');
  return space < 0 ? ['', trimmed] : [trimmed.slice(space + 1), trimmed.slice(0, space)];
}
