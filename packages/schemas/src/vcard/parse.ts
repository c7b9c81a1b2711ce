import { MAX_CARD_PROPERTIES } from '../limits';
import { type ContentLine, parseContentLine, splitUnescaped, unescapeText, unfold } from './lines';

/**
 * What a vCard (3.0 or 4.0) says about a contact, by the v4 input names (see toVCard for the
 * mapping). The contact keeps one e-mail, one personal and one work number: the first EMAIL (or
 * the one marked preferred), the first TEL typed home (else the first untyped, voice or cell one,
 * else the first of another type that is not work: text, video…) and the first typed work. Properties the contact has no field for are ignored, and so are PHOTO
 * (an image is never fetched from a URL) and X-CONTACTS-GROUP-ID (a group is a membership).
 */
export interface VCardContact {
  name?: string;
  email?: string;
  personal_number?: string;
  work_number?: string;
  company_name?: string;
  website?: string;
  address?: string;
  city?: string;
  state?: string;
  zipcode?: string;
  country?: string;
  join_date?: string;
  /**
   * Every name the CATEGORIES lines list (RFC 6350 §6.7.1: a comma-separated list, a comma inside
   * a name escaped), in order, blank ones left out. The contact has one business category: the
   * reader of the card takes the first name that is one (a list may lead with a name it has not).
   */
  categories?: string[];
}

/** A card that could not be read, and why; `unterminated` when it has no END:VCARD (no complete card). */
export type ParsedCard = { ok: true; contact: VCardContact } | { ok: false; reason: string; unterminated?: true };

const unterminated = (): ParsedCard => ({ ok: false, reason: 'The card has no END:VCARD.', unterminated: true });

/**
 * Every BEGIN:VCARD…END:VCARD in the text, in order, and each BEGIN:VCARD left open (flagged
 * `unterminated`); an empty list when there is none.
 */
export function parseVCards(text: string): ParsedCard[] {
  return parseVCardLines(unfold(text));
}

/**
 * parseVCards of lines already unfolded (see unfoldOctets): unfolding twice would join a line that
 * begins with white space once unfolded to the line before it.
 */
export function parseVCardLines(lines: readonly string[]): ParsedCard[] {
  const cards: ParsedCard[] = [];
  let current: ContentLine[] | undefined;
  let broken = false;
  // Past MAX_CARD_PROPERTIES a card's lines are counted, not kept: it is skipped whole.
  let overfull = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const parsed = parseContentLine(line);
    if (parsed?.name === 'BEGIN' && parsed.value.trim().toUpperCase() === 'VCARD') {
      if (current) cards.push(unterminated());
      current = [];
      broken = false;
      overfull = false;
    } else if (parsed?.name === 'END' && parsed.value.trim().toUpperCase() === 'VCARD' && current) {
      cards.push(
        overfull
          ? { ok: false, reason: `The card has more than ${MAX_CARD_PROPERTIES} properties.` }
          : broken
            ? { ok: false, reason: 'The card holds a line that is not a vCard property.' }
            : toContact(current),
      );
      current = undefined;
    } else if (current) {
      if (!parsed) broken = true;
      else if (current.length >= MAX_CARD_PROPERTIES) {
        overfull = true;
        current.length = 0;
      } else if (!overfull) current.push(parsed);
    }
  }
  if (current) cards.push(unterminated());
  return cards;
}

function toContact(lines: ContentLine[]): ParsedCard {
  const version = lines.find((line) => line.name === 'VERSION')?.value.trim();
  if (version !== '3.0' && version !== '4.0')
    return { ok: false, reason: `Only vCard 3.0 and 4.0 are read (this card says ${version ?? 'no VERSION'}).` };
  const contact: VCardContact = {};
  const first = (name: string) => lines.find((line) => line.name === name);
  const typesOf = (line: ContentLine) =>
    (line.params.get('TYPE') ?? []).flatMap((type) => type.split(',')).map((type) => type.toLowerCase());

  const fn = first('FN');
  if (fn) contact.name = unescapeText(fn.value).trim();
  const n = first('N');
  if (!contact.name && n) {
    const [family = '', given = '', additional = ''] = splitUnescaped(n.value, ';').map(unescapeText);
    contact.name = [given, additional, family].filter((part) => part.trim() !== '').join(' ');
  }

  const emails = lines.filter((line) => line.name === 'EMAIL');
  const preferred = emails.find((line) => typesOf(line).includes('pref') || line.params.get('PREF')?.[0] === '1');
  const email = preferred ?? emails[0];
  if (email) contact.email = unescapeText(email.value).trim();

  const phones = lines.filter((line) => line.name === 'TEL');
  const number = (line: ContentLine) => unescapeText(line.value).trim().replace(/^tel:/i, '');
  const home = phones.find((line) => typesOf(line).includes('home'));
  const work = phones.find((line) => typesOf(line).includes('work'));
  const notWork = phones.filter((line) => !typesOf(line).includes('work'));
  // voice is a TEL's type when none is given (RFC 6350 §6.4.1), and pref only orders: a line typed
  // nothing else is untyped. One typed text or video only (no voice line) is kept over nothing.
  const isPhone = (line: ContentLine) =>
    typesOf(line).every((type) => type === 'voice' || type === 'pref' || type === 'cell');
  const personal = home ?? notWork.find(isPhone) ?? notWork[0];
  if (personal) contact.personal_number = number(personal);
  if (work) contact.work_number = number(work);

  const org = first('ORG');
  if (org) contact.company_name = unescapeText(splitUnescaped(org.value, ';')[0] ?? '').trim();
  const url = first('URL');
  if (url) contact.website = url.value.trim();
  const adr = first('ADR');
  if (adr) {
    const [, , street, city, state, zipcode, country] = splitUnescaped(adr.value, ';').map(unescapeText);
    Object.assign(
      contact,
      Object.fromEntries(
        Object.entries({ address: street, city, state, zipcode, country }).filter(
          ([, value]) => value !== undefined && value.trim() !== '',
        ),
      ),
    );
  }
  const categories = lines
    .filter((line) => line.name === 'CATEGORIES')
    .flatMap((line) => splitUnescaped(line.value, ','))
    .map((name) => unescapeText(name).trim())
    .filter((name) => name !== '');
  if (categories.length > 0) contact.categories = categories;
  const joined = first('X-CONTACTS-JOIN-DATE');
  if (joined) contact.join_date = joined.value.trim();

  for (const key of Object.keys(contact) as Array<keyof VCardContact>) if (contact[key] === '') delete contact[key];
  if (!contact.name) return { ok: false, reason: 'The card has no FN or N (a name is required).' };
  return { ok: true, contact };
}
