import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import type { ContactRecordLike } from '../src/contact-fields';
import {
  escapeText,
  foldLine,
  parseVCards,
  splitLines,
  structured,
  toVCard,
  unescapeText,
  unfold,
  unfoldOctets,
} from '../src/vcard/index';

const record = (overrides: Partial<ContactRecordLike> = {}): ContactRecordLike => ({
  id: 42,
  owner_id: 1,
  name: 'Ada, Countess; of Lovelace',
  email: 'ada@example.test',
  company_name: 'Analytical; Engines, Ltd',
  personal_number: '+44 20 1234',
  work_number: '+44 20 9876',
  website: 'https://ada.example.test/a?b=1',
  street: 'Line one\nLine two',
  city: 'London',
  state: 'Greater London',
  zipcode: 'W1',
  country: 'Ångström-Land 東京',
  business_category_id: 3,
  business_category_name: 'Mathematics, applied',
  group_id: 7,
  referrer_id: null,
  referrer_name: null,
  join_date: '2024-02-29',
  image_sha256: 'abc',
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-02T03:04:05.678Z'),
  ...overrides,
});

describe('vCard lines', () => {
  it('folds at 75 octets without splitting a UTF-8 sequence, and unfolds back', () => {
    const line = `NOTE:${'é東😀'.repeat(40)}`;
    const folded = foldLine(line);
    const physical = folded.split('\r\n').filter((part) => part !== '');
    expect(physical.length).toBeGreaterThan(3);
    for (const part of physical) {
      expect(Buffer.byteLength(part)).toBeLessThanOrEqual(75);
      expect(part).not.toContain('\uFFFD');
    }
    expect(unfold(folded).join('')).toBe(line);
    expect(foldLine('FN:short')).toBe('FN:short\r\n');
  });

  it('unfolds octets: a fold inside a UTF-8 sequence (any line break, then one space or tab) rejoins it', () => {
    const bytes = Buffer.from('FN:Fold \xC3\r\n \xA9x\nNOTE:a\n\tb\rc\r d\r\n\r\n  e', 'latin1');
    const text = new TextDecoder('utf-8', { fatal: true }).decode(unfoldOctets(bytes));
    expect(text).toBe('FN:Fold éx\nNOTE:ab\rcd\r\n e');
    // One pass only: the white space left at a line's start is that line's, not another fold.
    expect(splitLines(text)).toEqual(['FN:Fold éx', 'NOTE:ab', 'cd', ' e']);
  });

  it('escapes and unescapes backslash, comma, semicolon and newlines', () => {
    expect(escapeText('a\\b,c;d\ne')).toBe('a\\\\b\\,c;d\\ne');
    expect(structured(['x;y', 'z'])).toBe('x\\;y;z');
    expect(unescapeText('a\\\\b\\,c\\;d\\ne\\Nf')).toBe('a\\b,c;d\ne\nf');
  });
});

describe('toVCard', () => {
  it('writes a vCard 4.0 that an independent parser (ical.js) reads back field for field', () => {
    const text = toVCard(record(), { publicUrl: 'https://api.example.test/' });
    expect(text.startsWith('BEGIN:VCARD\r\nVERSION:4.0\r\n')).toBe(true);
    const card = new ICAL.Component(ICAL.parse(text) as unknown[]);
    const value = (name: string) => card.getFirstPropertyValue(name);
    expect(value('uid')).toBe('https://api.example.test/v4/contacts/42');
    expect(value('fn')).toBe('Ada, Countess; of Lovelace');
    expect(value('n')).toEqual(['Lovelace', 'Ada, Countess; of', '', '', '']);
    expect(value('email')).toBe('ada@example.test');
    const phones = card.getAllProperties('tel').map((tel) => [tel.getParameter('type'), tel.getFirstValue()]);
    expect(phones).toEqual([
      ['home', '+44 20 1234'],
      ['work', '+44 20 9876'],
    ]);
    expect(value('org')).toBe('Analytical; Engines, Ltd');
    expect(value('url')).toBe('https://ada.example.test/a?b=1');
    expect(value('adr')).toEqual([
      '',
      '',
      'Line one\nLine two',
      'London',
      'Greater London',
      'W1',
      'Ångström-Land 東京',
    ]);
    expect(value('categories')).toBe('Mathematics, applied');
    expect(value('x-contacts-join-date')).toBe('2024-02-29');
    expect(value('x-contacts-group-id')).toBe('7');
    expect(value('photo')).toBe('https://api.example.test/v4/contacts/42/image');
  });

  it('leaves out what the contact does not have', () => {
    const text = toVCard(
      record({
        name: 'Solo',
        email: null,
        personal_number: null,
        work_number: null,
        company_name: null,
        website: null,
        street: null,
        city: null,
        state: null,
        zipcode: null,
        country: null,
        business_category_name: null,
        group_id: null,
        join_date: null,
        image_sha256: null,
      }),
      { publicUrl: 'https://api.example.test' },
    );
    expect(text.split('\r\n').map((line) => line.split(':')[0])).toEqual([
      'BEGIN',
      'VERSION',
      'UID',
      'FN',
      'N',
      'REV',
      'END',
      '',
    ]);
  });
});

describe('parseVCards', () => {
  it('reads back what toVCard writes', () => {
    const [card] = parseVCards(toVCard(record(), { publicUrl: 'https://api.example.test' }));
    expect(card).toEqual({
      ok: true,
      contact: {
        name: 'Ada, Countess; of Lovelace',
        email: 'ada@example.test',
        personal_number: '+44 20 1234',
        work_number: '+44 20 9876',
        company_name: 'Analytical; Engines, Ltd',
        website: 'https://ada.example.test/a?b=1',
        address: 'Line one\nLine two',
        city: 'London',
        state: 'Greater London',
        zipcode: 'W1',
        country: 'Ångström-Land 東京',
        categories: ['Mathematics, applied'],
        join_date: '2024-02-29',
      },
    });
  });

  it.each([
    ['a video line before a cell one', ['TEL;TYPE=video:111', 'TEL;TYPE=cell:222'], '222'],
    ['a text line before an untyped one', ['TEL;TYPE=text:333', 'TEL:444'], '444'],
    [
      'a voice line (the default type) after a textphone one',
      ['TEL;TYPE=textphone:555', 'TEL;TYPE=voice,pref:666'],
      '666',
    ],
    ['only a text line', ['TEL;TYPE=text:777', 'TEL;TYPE=work:888'], '777'],
  ])('takes as the personal number an untyped, voice or cell TEL over %s', (_label, phones, personal) => {
    const text = ['BEGIN:VCARD', 'VERSION:4.0', 'FN:Phones', ...phones, 'END:VCARD'].join('\r\n');
    const [card] = parseVCards(text);
    expect(card).toMatchObject({ ok: true, contact: { personal_number: personal } });
  });

  it('reads CATEGORIES as a list: every name of every line, in order, escaped commas kept, blanks left out', () => {
    const text = [
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Listed',
      'CATEGORIES:Unknown,Services 115461, ,Repairs\\, general',
      'CATEGORIES:Later',
      'END:VCARD',
    ].join('\r\n');
    expect(parseVCards(text)).toEqual([
      {
        ok: true,
        contact: { name: 'Listed', categories: ['Unknown', 'Services 115461', 'Repairs, general', 'Later'] },
      },
    ]);
  });

  it('reads vCard 3.0 with folded lines, several TEL and EMAIL, bare types and unknown properties', () => {
    const text = [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'N:Hopper;Grace;Brewster;;',
      'EMAIL;TYPE=INTERNET:first@example.test',
      'EMAIL;TYPE=INTERNET,PREF:preferred@exam',
      ' ple.test',
      'TEL;CELL:111',
      'TEL;TYPE=WORK,VOICE:222',
      'TEL;HOME:333',
      'X-SOCIALPROFILE;TYPE=twitter:grace',
      'item1.ORG:Navy\\, US;Research',
      'BDAY:1906-12-09',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:2.1',
      'FN:Old',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:4.0',
      'EMAIL:nameless@example.test',
      'END:VCARD',
    ].join('\r\n');
    const cards = parseVCards(text);
    expect(cards[0]).toEqual({
      ok: true,
      contact: {
        name: 'Grace Brewster Hopper',
        email: 'preferred@example.test',
        personal_number: '333',
        work_number: '222',
        company_name: 'Navy, US',
      },
    });
    expect(cards[1]).toMatchObject({ ok: false, reason: expect.stringContaining('2.1') });
    expect(cards[2]).toMatchObject({ ok: false, reason: expect.stringContaining('name') });
  });

  it('finds no card in text that holds none, and flags an unterminated one', () => {
    expect(parseVCards('hello\r\nworld')).toEqual([]);
    expect(parseVCards('BEGIN:VCARD\r\nVERSION:4.0\r\nFN:X')).toEqual([
      { ok: false, reason: 'The card has no END:VCARD.', unterminated: true },
    ]);
  });
});
