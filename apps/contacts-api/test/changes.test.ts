import { updateContact } from '@contacts/db';
import { describe, expect, it } from 'vitest';
import { encodeSyncToken } from '../src/sync/sync-token';
import { aCategory, aClient, aContact, aGroup, type Client, multipart, PNG } from './support/factories';
import { useStack } from './support/use-stack';

interface Contact {
  id: number;
  [key: string]: unknown;
}
type Page = {
  data: Contact[];
  deleted: number[];
  meta: { next_cursor: string | null; limit: number; sync_token?: string };
};
type Failure = { error: { code: string; message: string; fields?: Record<string, string[]> } };

const world = useStack({ client: false });

/** Pages through the feed, applying every page in order to `mirror`; returns the new token. */
async function sync(client: Client, mirror: Map<number, Contact>, token?: string, limit = 3): Promise<string> {
  let cursor: string | null = null;
  for (;;) {
    const params = new URLSearchParams({ limit: String(limit) });
    if (token) params.set('sync_token', token);
    if (cursor) params.set('cursor', cursor);
    const { status, body } = await client.json<Page>(`/v4/contacts/changes?${params}`);
    expect(status, JSON.stringify(body)).toBe(200);
    const dataIds = new Set(body.data.map((contact) => contact.id));
    expect(body.deleted.filter((id) => dataIds.has(id))).toEqual([]);
    for (const contact of body.data) mirror.set(contact.id, contact);
    for (const id of body.deleted) mirror.delete(id);
    cursor = body.meta.next_cursor;
    if (cursor === null) {
      expect(body.meta.sync_token).toEqual(expect.any(String));
      return body.meta.sync_token!;
    }
    expect(body.meta.sync_token).toBeUndefined();
  }
}

async function fullListing(client: Client): Promise<Map<number, Contact>> {
  const state = new Map<number, Contact>();
  await sync(client, state, undefined, 1000);
  return state;
}

const create = async (client: Client, name: string) =>
  (await client.json<{ data: Contact }>('/v4/contacts', { method: 'POST', json: { name } })).body.data.id;

describe('GET /v4/contacts/changes', () => {
  it('lists the whole book in pages without a token, the token on the last page only', async () => {
    const client = await aClient(world.stack);
    const ids = [];
    for (let index = 0; index < 5; index += 1) ids.push(await aContact(world.stack.db, client.member));
    const first = await client.json<Page>('/v4/contacts/changes?limit=2');
    expect(first.body.data.map((contact) => contact.id)).toEqual(ids.slice(0, 2));
    expect(first.body.deleted).toEqual([]);
    expect(first.body.meta.sync_token).toBeUndefined();
    const mirror = new Map<number, Contact>();
    await sync(client, mirror, undefined, 2);
    expect([...mirror.keys()]).toEqual(ids);
    // The cursor carries the page size: sent alone it pages by 2 again; a limit beside it wins.
    const second = await client.json<Page>(`/v4/contacts/changes?cursor=${first.body.meta.next_cursor}`);
    expect(second.body.data.map((contact) => contact.id)).toEqual(ids.slice(2, 4));
    expect(second.body.meta.limit).toBe(2);
    const wider = await client.json<Page>(`/v4/contacts/changes?limit=5&cursor=${first.body.meta.next_cursor}`);
    expect(wider.body.data.map((contact) => contact.id)).toEqual(ids.slice(2));
  });

  it('answers an empty change set when nothing changed, and reports creates, updates and deletes', async () => {
    const client = await aClient(world.stack);
    const kept = await create(client, 'Kept');
    const changed = await create(client, 'Changed');
    const removed = await create(client, 'Removed');
    const token = await sync(client, new Map());
    const quiet = await client.json<Page>(`/v4/contacts/changes?sync_token=${token}`);
    expect(quiet.body).toEqual({ data: [], deleted: [], meta: expect.objectContaining({ next_cursor: null }) });

    await client.json(`/v4/contacts/${changed}`, { method: 'POST', json: { city: 'Lyon' } });
    const added = await create(client, 'Added');
    await client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [removed] } });
    const { body } = await client.json<Page>(`/v4/contacts/changes?sync_token=${token}`);
    expect(body.data.map((contact) => [contact.id, contact.city])).toEqual([
      [changed, 'Lyon'],
      [added, null],
    ]);
    expect(body.deleted).toEqual([removed]);
    expect(body.data.map((contact) => contact.id)).not.toContain(kept);
  });

  it("gives every contact of data its etag, GET's ETag header for it, usable as a batch's if_match until the next write", async () => {
    const client = await aClient(world.stack);
    const category = await aCategory(world.stack.db);
    const plain = await create(client, 'Plain');
    const categorised = await aContact(world.stack.db, client.member, { business_category_id: category.id });
    const read = async (id: number) => {
      const response = await client.request(`/v4/contacts/${id}`);
      return { etag: response.headers.get('etag'), contact: ((await response.json()) as { data: Contact }).data };
    };
    /** Each item is the contact GET answers, plus its ETag header as `etag`. */
    const expectAsRead = async (items: Contact[]) => {
      for (const { etag, ...contact } of items) {
        const current = await read(contact.id);
        expect(etag, `contact ${contact.id}`).toEqual(expect.stringMatching(/^"[^"]+"$/));
        expect(etag, `contact ${contact.id}`).toBe(current.etag);
        expect(contact).toEqual(current.contact);
      }
    };

    const full = await client.json<Page>('/v4/contacts/changes');
    expect(full.body.data.map((contact) => contact.id)).toEqual([plain, categorised]);
    await expectAsRead(full.body.data);
    const seen = full.body.data[0]?.etag as string;

    // Incremental: the changed contact, with its new etag.
    await client.json(`/v4/contacts/${categorised}`, { method: 'POST', json: { city: 'Lyon' } });
    const changed = await client.json<Page>(`/v4/contacts/changes?sync_token=${full.body.meta.sync_token}`);
    expect(changed.body.data.map((contact) => contact.id)).toEqual([categorised]);
    await expectAsRead(changed.body.data);
    expect(changed.body.data[0]?.etag).not.toBe(full.body.data[1]?.etag);

    // The feed's etag passed as-is: the write goes through, and then it is stale.
    const update = (contact: Record<string, unknown>) =>
      client.json<{ data: Contact[] }>('/v4/contacts/batch', {
        method: 'POST',
        json: { operations: [{ op: 'update', id: plain, contact, if_match: seen }] },
      });
    const written = await update({ city: 'Paris' });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.data[0]?.city).toBe('Paris');
    expect((await update({ city: 'Rome' })).status).toBe(412);
    const single = await client.json(`/v4/contacts/${plain}`, {
      method: 'POST',
      headers: { 'if-match': seen },
      json: { city: 'Rome' },
    });
    expect(single.status).toBe(412);
  });

  it("reports an image's removal once, as a change of the contact with image_url null, and a refused one not at all", async () => {
    const client = await aClient(world.stack);
    const pictured = async (name: string) => {
      const created = await client.request('/v4/contacts', {
        method: 'POST',
        body: multipart({ name }, { bytes: PNG, filename: 'p.png', type: 'image/png' }),
      });
      return ((await created.json()) as { data: Contact }).data.id;
    };
    const id = await pictured('Unpictured');
    const other = await pictured('Still pictured');
    const mirror = new Map<number, Contact>();
    const token = await sync(client, mirror);
    expect(mirror.get(id)?.image_url).toEqual(expect.any(String));

    expect((await client.request(`/v4/contacts/${id}/image`, { method: 'DELETE' })).status).toBe(204);
    const { body } = await client.json<Page>(`/v4/contacts/changes?sync_token=${token}`);
    expect(body.data.map((contact) => [contact.id, contact.image_url])).toEqual([[id, null]]);
    expect(body.deleted).toEqual([]);
    const next = await sync(client, mirror, token);
    expect(mirror).toEqual(await fullListing(client));
    expect(mirror.get(other)?.image_url).toEqual(expect.any(String));

    // Refused (no image any more; a stale If-Match): nothing to report.
    expect((await client.request(`/v4/contacts/${id}/image`, { method: 'DELETE' })).status).toBe(404);
    expect(
      (await client.request(`/v4/contacts/${other}/image`, { method: 'DELETE', headers: { 'if-match': '"stale"' } }))
        .status,
    ).toBe(412);
    const quiet = await client.json<Page>(`/v4/contacts/changes?sync_token=${next}`);
    expect(quiet.body.data).toEqual([]);
    expect(quiet.body.deleted).toEqual([]);
  });

  it('catches, in the next sync, a change made while a full listing was being paged', async () => {
    const client = await aClient(world.stack);
    const ids = [];
    for (let index = 0; index < 4; index += 1) ids.push(await create(client, `P${index}`));
    const first = await client.json<Page>('/v4/contacts/changes?limit=2');
    // Behind the cursor: the rest of this listing will not show these.
    await client.json(`/v4/contacts/${ids[0]}`, { method: 'POST', json: { city: 'Changed meanwhile' } });
    await client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [ids[1]] } });
    const last = await client.json<Page>(`/v4/contacts/changes?limit=2&cursor=${first.body.meta.next_cursor}`);
    expect(last.body.meta.next_cursor).toBeNull();
    const next = await client.json<Page>(`/v4/contacts/changes?sync_token=${last.body.meta.sync_token}`);
    expect(next.body.data.map((contact) => [contact.id, contact.city])).toEqual([[ids[0], 'Changed meanwhile']]);
    expect(next.body.deleted).toEqual([ids[1]]);
  });

  it('ends an incremental sync however fast others write meanwhile: what they write after its first page comes with the next one', async () => {
    const client = await aClient(world.stack);
    const token = await sync(client, new Map());
    const before = [];
    for (let index = 0; index < 3; index += 1) before.push(await create(client, `Before ${index}`));
    const seen: number[] = [];
    const written: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let nextToken: string | undefined;
    do {
      const params = new URLSearchParams({ limit: '1', sync_token: token });
      if (cursor) params.set('cursor', cursor);
      const { body } = await client.json<Page>(`/v4/contacts/changes?${params}`);
      seen.push(...body.data.map((contact) => contact.id));
      cursor = body.meta.next_cursor;
      nextToken = body.meta.sync_token;
      // Two new contacts for every page read: a feed that followed them would never end.
      written.push(await create(client, `During ${pages}a`), await create(client, `During ${pages}b`));
      pages += 1;
    } while (cursor !== null && pages < 50);
    expect(cursor).toBeNull();
    expect(seen).toEqual(before);
    // The next sync brings every one of them.
    const next = await client.json<Page>(`/v4/contacts/changes?limit=1000&sync_token=${nextToken}`);
    expect(next.body.data.map((contact) => contact.id)).toEqual(written);
  });

  it('reports a deletion by every path: v4 bulk, v4 by group, v3 DELETE, and a created-then-deleted contact', async () => {
    const client = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [client.member]);
    const [single, bulkA, bulkB, grouped, viaV3] = [
      await create(client, 'Single'),
      await create(client, 'Bulk A'),
      await create(client, 'Bulk B'),
      await aContact(world.stack.db, client.member, { group_id: group.id }),
      await create(client, 'V3'),
    ];
    const token = await sync(client, new Map());
    const ephemeral = await create(client, 'Ephemeral');
    const deletes = [
      await client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [single] } }),
      await client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [bulkA, bulkB, ephemeral] } }),
      await client.json('/v4/contacts', { method: 'DELETE', json: { group_id: group.id } }),
      await client.json(`/v3/contacts/${viaV3}`, { method: 'DELETE' }),
    ];
    expect(deletes.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    const { body } = await client.json<Page>(`/v4/contacts/changes?sync_token=${token}`);
    expect(body.data).toEqual([]);
    expect(body.deleted).toEqual([single, bulkA, bulkB, grouped, viaV3, ephemeral]);
  });

  it('refuses an expired token with 410, and a malformed or foreign one with 422', async () => {
    const client = await aClient(world.stack);
    const other = await aClient(world.stack);
    const token = await sync(client, new Map());
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString()) as { s: string };
    const old = encodeSyncToken({
      memberId: client.member.id,
      snapshot: decoded.s,
      issuedAt: Math.floor(Date.now() / 1000) - 2_592_001,
    });
    const expired = await client.json<Failure>(`/v4/contacts/changes?sync_token=${old}`);
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('sync_token_expired');
    expect(expired.body.error.message).toMatch(/full sync/);

    const snapshotLike = Buffer.from(JSON.stringify({ k: 't', m: client.member.id, s: '10:5:', i: 1 })).toString(
      'base64url',
    );
    for (const bad of ['nonsense', 'e30', snapshotLike, '%00']) {
      const { status, body } = await client.json<Failure>(`/v4/contacts/changes?sync_token=${bad}`);
      expect(status, bad).toBe(422);
      expect(body.error.code).toBe('validation_failed');
      expect(Object.keys(body.error.fields ?? {}), bad).toEqual(['sync_token']);
    }
    const foreign = await other.json<Failure>(`/v4/contacts/changes?sync_token=${token}`);
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.fields?.sync_token).toHaveLength(1);

    const badCursor = await client.json<Failure>('/v4/contacts/changes?cursor=abc');
    expect(badCursor.status).toBe(422);
    expect(Object.keys(badCursor.body.error.fields ?? {})).toEqual(['cursor']);
    const badLimit = await client.json<Failure>('/v4/contacts/changes?limit=1001');
    expect(badLimit.status).toBe(422);
  });

  it("refuses a cursor sent where it does not belong: with another feed's sync token, or to the plain listing", async () => {
    const client = await aClient(world.stack);
    for (let index = 0; index < 3; index += 1) await aContact(world.stack.db, client.member);
    const token = await sync(client, new Map());
    await create(client, 'Changed since');
    await create(client, 'Changed since too');
    const fullPage = await client.json<Page>('/v4/contacts/changes?limit=1');
    const fullCursor = fullPage.body.meta.next_cursor as string;
    const incremental = await client.json<Page>(`/v4/contacts/changes?limit=1&sync_token=${token}`);
    const incrementalCursor = incremental.body.meta.next_cursor as string;

    // A full listing's cursor with a token would have answered a full listing, the token ignored.
    const mixed = await client.json<Failure>(`/v4/contacts/changes?cursor=${fullCursor}&sync_token=${token}`);
    expect(mixed.status).toBe(422);
    expect(Object.keys(mixed.body.error.fields ?? {})).toEqual(['cursor']);
    // With the token it was issued for, or alone, a cursor goes on as before.
    expect((await client.json(`/v4/contacts/changes?cursor=${incrementalCursor}&sync_token=${token}`)).status).toBe(
      200,
    );
    expect((await client.json(`/v4/contacts/changes?cursor=${incrementalCursor}`)).status).toBe(200);

    // The listing's cursors are its own: a change-feed cursor (which also names a last id) is refused.
    const listed = await client.json<Failure>(`/v4/contacts?cursor=${fullCursor}`);
    expect(listed.status).toBe(422);
    expect(Object.keys(listed.body.error.fields ?? {})).toEqual(['cursor']);
  });

  it('keeps a syncing mirror equal to the server while others write concurrently', async () => {
    const client = await aClient(world.stack);
    const live: number[] = [];
    for (let index = 0; index < 10; index += 1) live.push(await create(client, `Seed ${index}`));
    const mirror = new Map<number, Contact>();
    let token = await sync(client, mirror);

    let writing = true;
    const random = (max: number) => Math.floor(Math.random() * max);
    const writer = async (name: string) => {
      for (let step = 0; writing; step += 1) {
        const choice = random(4);
        if (choice === 0 || live.length < 3) live.push(await create(client, `${name} ${step}`));
        else if (choice === 1) {
          const [id] = live.splice(random(live.length), 1);
          await client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [id] } });
        } else if (choice === 2) {
          await client.json(`/v4/contacts/${live[random(live.length)]}`, {
            method: 'POST',
            json: { city: `${name} ${step}` },
          });
        } else {
          // A transaction that writes, then commits late: after syncs have read past it.
          const id = live[random(live.length)]!;
          await world.stack.db.transaction(async (trx) => {
            await updateContact(trx, client.member.id, id, { state: `${name} late ${step}` });
            await new Promise((resolve) => setTimeout(resolve, 30));
          });
        }
      }
    };
    const writers = Promise.all(['A', 'B', 'C'].map(writer));
    const deadline = Date.now() + 2_500;
    let syncs = 0;
    while (Date.now() < deadline) {
      token = await sync(client, mirror, token, 2);
      syncs += 1;
    }
    writing = false;
    await writers;
    await sync(client, mirror, token, 2);

    expect(syncs).toBeGreaterThan(3);
    const server = await fullListing(client);
    expect([...mirror.keys()].sort((a, b) => a - b)).toEqual([...server.keys()].sort((a, b) => a - b));
    for (const [id, contact] of server) expect(mirror.get(id), `contact ${id}`).toEqual(contact);
  });
});
