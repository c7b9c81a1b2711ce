import { Readable } from 'node:stream';
import { contactRecordPages, type Database, listBusinessCategories } from '@contacts/db';
import {
  contactCreateV4,
  MAX_IMPORT_CARDS,
  type ParsedCard,
  parseContentLine,
  parseVCardLines,
  splitLines,
  toVCard,
  unfoldOctets,
  type VCardContact,
  v4InputToChanges,
  validate,
} from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { createContact } from '../../domain/contacts';
import { DomainError } from '../../domain/errors';
import { readBodyBytes, requireUtf8Charset, utf8Text } from '../../http/body-text';
import { concurrencyGate } from '../../http/concurrency-gate';
import { ApiError, validationFailed } from '../../http/errors';
import { koaGuard } from '../../http/guard';
import { parseMultipart, readUploadedFile } from '../../http/multipart';
import { discardUploads } from '../../http/upload-spool';
import { callerOf, type RouteDependencies } from '../context';
import { v4Error } from '../contract-parts';

/** The largest import, read and written in one transaction (about 10,000 typical cards; MAX_IMPORT_CARDS at most). */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
const IMPORT_LIMIT = `${MAX_IMPORT_BYTES / (1024 * 1024)} MiB`;
const VCARD_TYPES = ['text/vcard', 'text/x-vcard', 'text/directory'];

const tooLarge = () =>
  new ApiError(413, 'payload_too_large', `An import holds at most ${MAX_IMPORT_BYTES} bytes; split the file.`);

/** Imports running at once in one process (each one transaction on one pooled connection). */
export const MAX_CONCURRENT_IMPORTS = 2;
const BEGIN_VCARD = /^BEGIN:VCARD\s*$/i;

/** GET /v4/contacts/export (vCard 4.0, streamed) and POST /v4/contacts/import (vCard 3.0 or 4.0). */
export function vCardRoutes({ db, publicUrl, read, write, rateLimit }: RouteDependencies): Router {
  const importSlots = concurrencyGate(MAX_CONCURRENT_IMPORTS, 'vCard imports');
  const router = new Router();

  const exported = koaGuard({
    operationId: 'exportContacts',
    summary: "The caller's contacts as vCard 4.0 (RFC 6350), streamed",
    scope: 'contacts:read',
    responses: {
      200: { description: 'One vCard per contact.', content: { 'text/vcard': { schema: { type: 'string' } } } },
    },
  });
  router.get('/v4/contacts/export', read, rateLimit, exported.middleware, async (ctx) => {
    const memberId = callerOf(ctx).memberId;
    ctx.type = 'text/vcard; charset=utf-8';
    ctx.set('Content-Disposition', 'attachment; filename="contacts.vcf"');
    ctx.set('Cache-Control', 'private, no-store');
    // One page ahead at most (Readable.from's default is 16): a reader slower than the database
    // (a phone on a bad network) must not make the process hold its whole book in memory.
    ctx.body = Readable.from(exportCards(db, memberId, publicUrl), { highWaterMark: 1 });
  });

  const imported = koaGuard({
    operationId: 'importContacts',
    summary: `Creates contacts from vCard 3.0 or 4.0, in one transaction (at most ${IMPORT_LIMIT})`,
    scope: 'contacts:write',
    // Read by readVCardLines(), not by the guard: a vCard is no JSON, and the file arrives in multipart.
    requestBody: {
      'text/vcard': { type: 'string' },
      'multipart/form-data': {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', contentMediaType: 'text/vcard' } },
      },
    },
    responses: {
      200: {
        description:
          "How many contacts were created, the id of each card's new contact (cards counted from 0, in " +
          'order), and which cards were skipped, and why.',
        schema: z.object({
          data: z.object({
            created: z.int(),
            contacts: z.array(z.object({ index: z.int(), id: z.int() })),
            skipped: z.array(z.object({ index: z.int(), reason: z.string() })),
          }),
        }),
      },
      413: v4Error(`The body is larger than ${IMPORT_LIMIT}.`),
      422: v4Error(
        `The body holds no complete vCard (BEGIN…END) or more than ${MAX_IMPORT_CARDS} cards, or the multipart form has no \`file\`.`,
      ),
    },
  });
  router.post('/v4/contacts/import', write, rateLimit, importSlots, imported.middleware, async (ctx) => {
    const lines = await readVCardLines(ctx);
    // Counted before anything is parsed or written: one transaction must stay short.
    const cardCount = lines.reduce((count, line) => count + (BEGIN_VCARD.test(line) ? 1 : 0), 0);
    if (cardCount > MAX_IMPORT_CARDS) {
      throw validationFailed({
        file: [`An import holds at most ${MAX_IMPORT_CARDS} cards (this file has ${cardCount}); split the file.`],
      });
    }
    const cards = parseVCardLines(lines.filter((line) => !isFaxOrPager(line)));
    // Only unterminated cards (or none): the body is no vCard file, not a file with bad cards.
    if (cards.every((card) => !card.ok && card.unterminated))
      throw validationFailed({ file: ['The body holds no complete vCard (BEGIN:VCARD … END:VCARD).'] });
    const categories = categoryMatcher(await listBusinessCategories(db));
    const memberId = callerOf(ctx).memberId;
    const result = await db.transaction(async (trx) => {
      // Which card became which contact: a client mirroring its book maps its cards to ids.
      const contacts: Array<{ index: number; id: number }> = [];
      const skipped: Array<{ index: number; reason: string }> = [];
      for (const [index, card] of cards.entries()) {
        const outcome = await importCard(trx, memberId, card, categories);
        if ('id' in outcome) contacts.push({ index, id: outcome.id });
        else skipped.push({ index, reason: outcome.reason });
      }
      return { created: contacts.length, contacts, skipped };
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: result };
  });

  return router;
}

/** The member's contacts as vCards, a page at a time, so that no more than a page is held. */
async function* exportCards(db: Database, memberId: number, publicUrl: string): AsyncGenerator<string> {
  for await (const page of contactRecordPages(db, { ownerId: memberId })) {
    yield page.map((record) => toVCard(record, { publicUrl })).join('');
  }
}

/**
 * Creates one card's contact inside the import's transaction, in a savepoint so that a card the
 * rules refuse is skipped without undoing the others. Returns the new contact's id, or why the
 * card was skipped.
 */
async function importCard(
  trx: Database,
  memberId: number,
  card: ParsedCard,
  categories: (name: string) => number | undefined,
): Promise<{ id: number } | { reason: string }> {
  if (!card.ok) return { reason: card.reason };
  const { categories: names, ...fields } = card.contact;
  const categoryId = firstCategoryOf(names ?? [], categories);
  const input = validate(contactCreateV4, {
    ...fields,
    ...(categoryId !== undefined ? { business_category_id: categoryId } : {}),
  } satisfies Omit<VCardContact, 'categories'> & { business_category_id?: number });
  if (!input.ok) {
    const reason = Object.entries(input.fields)
      .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
      .join(' ');
    return { reason };
  }
  const changes = v4InputToChanges(input.value);
  try {
    const record = await trx.transaction((savepoint) => createContact(savepoint, memberId, changes));
    return { id: record.id };
  } catch (error) {
    if (error instanceof DomainError) return { reason: error.message };
    throw error;
  }
}

/**
 * The business category of a card's CATEGORIES list: that of the first name that names one. A
 * contact has one category, and a list may lead with names the service has not (a client's own
 * tags), so the names before it and after it are ignored, as an unknown name alone is.
 */
function firstCategoryOf(
  names: readonly string[],
  categories: (name: string) => number | undefined,
): number | undefined {
  for (const name of names) {
    const id = categories(name);
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * Finds one CATEGORIES name among the business categories (listed by id): the one of exactly that
 * name, else the first (lowest id) whose name matches ignoring case. Names are unique only as
 * written, so "Plumbing" and "PLUMBING" may both exist, and an export names the one it means.
 */
function categoryMatcher(
  categories: ReadonlyArray<{ id: number; name: string }>,
): (name: string) => number | undefined {
  const exact = new Map<string, number>();
  const anyCase = new Map<string, number>();
  for (const { id, name } of categories) {
    if (!exact.has(name)) exact.set(name, id);
    const folded = name.toLowerCase();
    if (!anyCase.has(folded)) anyCase.set(folded, id);
  }
  return (name) => exact.get(name) ?? anyCase.get(name.toLowerCase());
}

const NOT_A_PHONE = new Set(['fax', 'pager']);

/**
 * An unfolded TEL line typed fax or pager (RFC 6350 §6.4.1; TYPE=FAX, or the bare 3.0 `TEL;FAX:`),
 * which is no number to call: the reader takes the first home, untyped or cell TEL as the personal
 * number and the first work TEL as the work number, so such lines are left out before it reads.
 */
function isFaxOrPager(line: string): boolean {
  if (!/^(?:[A-Za-z0-9-]+\.)?TEL[;:]/i.test(line)) return false;
  const parsed = parseContentLine(line);
  return (parsed?.params.get('TYPE') ?? []).some((types) =>
    types.split(',').some((type) => NOT_A_PHONE.has(type.trim().toLowerCase())),
  );
}

/**
 * The unfolded lines of an import: a text/vcard body, or the `file` field of a multipart form;
 * read as every body is (Content-Encoding undone, strict UTF-8: vCard 4.0 is UTF-8 only, RFC 6350
 * §3.1), except that the octets are unfolded before they are decoded (RFC 6350 §3.2: a fold may
 * split a UTF-8 sequence). Bytes that are not UTF-8 once unfolded → 400.
 */
async function readVCardLines(ctx: Context): Promise<string[]> {
  if (ctx.is(VCARD_TYPES)) {
    requireUtf8Charset(ctx);
    const bytes = await readBodyBytes(ctx, { limit: MAX_IMPORT_BYTES, tooLarge });
    return splitLines(utf8Text(unfoldOctets(bytes), 'The body'));
  }
  if (ctx.is('multipart/form-data')) {
    const body = await parseMultipart(ctx.req, { fileFields: ['file'], maxFileBytes: MAX_IMPORT_BYTES });
    try {
      const file = body.files.find((candidate) => candidate.field === 'file');
      if (!file) throw validationFailed({ file: ['Send the vCard file in the multipart field "file".'] });
      return splitLines(utf8Text(unfoldOctets(await readUploadedFile(file)), 'The file'));
    } finally {
      await discardUploads(body.files.map((file) => file.path));
    }
  }
  throw new ApiError(415, 'unsupported_media_type', 'Send text/vcard, or multipart/form-data with a "file" field.');
}
