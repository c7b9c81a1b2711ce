import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { aCategory, aClient, aContact, type Client, JPEG, multipart, PNG } from './support/factories';
import { useStack } from './support/use-stack';

/** updated_at as the writes order a contact's states, and updates that change nothing writing nothing. */
interface Contact {
  id: number;
  updated_at: string;
  [key: string]: unknown;
}
type One = { data: Contact };
type Page = { data: Contact[]; deleted: number[]; meta: { next_cursor: string | null; sync_token?: string } };
type Failure = { error: { code: string; fields?: Record<string, string[]> } };

const world = useStack({ client: false });

/**
 * Runs `write` while another transaction holds what the write needs (a row lock, an advisory
 * lock): `hold` takes it, `write` starts and waits for it inside its own transaction (already
 * begun, so its now() is fixed), `meanwhile` runs, then the holder lets go and `write` finishes.
 */
async function whileHeld<T, M>(
  hold: (trx: Knex.Transaction) => Promise<unknown>,
  write: () => Promise<T>,
  meanwhile: () => Promise<M>,
): Promise<[T, M]> {
  const holder = await world.stack.db.transaction();
  try {
    const { rows } = await holder.raw<{ rows: Array<{ pid: number }> }>('select pg_backend_pid() as pid');
    const pid = rows[0]!.pid;
    await hold(holder);
    const written = write();
    const started = Date.now();
    for (;;) {
      const waiting = await world.stack.db.raw<{ rows: Array<{ n: number }> }>(
        'select count(*)::int as n from pg_stat_activity where ? = any(pg_blocking_pids(pid))',
        [pid],
      );
      if (waiting.rows[0]!.n > 0) break;
      if (Date.now() - started > 5_000) throw new Error('the write never waited for the lock');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const done = await meanwhile();
    await holder.rollback();
    return [await written, done];
  } finally {
    if (!holder.isCompleted()) await holder.rollback();
  }
}

const rowOf = (id: number) => world.stack.db('contacts').where({ id }).first('updated_at', 'xid');
const update = (client: Client, id: number, json: unknown, headers: Record<string, string> = {}) =>
  client.json<One & Failure>(`/v4/contacts/${id}`, { method: 'POST', json, headers });

async function syncToken(client: Client): Promise<string> {
  const { body } = await client.json<Page>('/v4/contacts/changes?limit=1000');
  expect(body.meta.next_cursor).toBeNull();
  return body.meta.sync_token!;
}
const changesSince = async (client: Client, token: string) =>
  (await client.json<Page>(`/v4/contacts/changes?sync_token=${encodeURIComponent(token)}&limit=1000`)).body;

describe('updated_at follows the order of the writes', () => {
  it('stamps a batch update with the time of its write, after a single update that committed while the batch waited', async () => {
    const client = await aClient(world.stack);
    const others: number[] = [];
    for (let index = 0; index < 5; index += 1) others.push(await aContact(world.stack.db, client.member));
    const x = await aContact(world.stack.db, client.member, { name: 'X' });
    const [batched, single] = await whileHeld(
      // The batch waits on its first contact, in its transaction (begun before the single update).
      (holder) => holder('contacts').where({ id: others[0] }).forUpdate().first('id'),
      () =>
        client.json<{ data: Contact[] }>('/v4/contacts/batch', {
          method: 'POST',
          json: {
            operations: [
              ...others.map((id) => ({ op: 'update', id, contact: { city: 'Batch' } })),
              { op: 'update', id: x, contact: { state: 'Batch' } },
            ],
          },
        }),
      () => update(client, x, { city: 'Single' }),
    );
    expect(single.status).toBe(200);
    expect(batched.status).toBe(200);
    const final = (await client.json<One>(`/v4/contacts/${x}`)).body.data;
    expect(final).toMatchObject({ city: 'Single', state: 'Batch' });
    expect(batched.body.data.at(-1)!.updated_at).toBe(final.updated_at);
    // The later state has the later time, so a client asking for changes since what it saw finds it.
    expect(final.updated_at > single.body.data.updated_at).toBe(true);
    const since = await client.json<{ data: Contact[] }>(
      `/v4/contacts?updated_since=${encodeURIComponent(single.body.data.updated_at)}`,
    );
    expect(since.body.data.map((contact) => contact.id)).toContain(x);
    // The vCard REV too.
    const exported = await (await client.request('/v4/contacts/export')).text();
    const card = exported.split('END:VCARD').find((text) => text.includes(`/v4/contacts/${x}\r\n`))!;
    expect(/REV:(\S+)/.exec(card)![1]! > single.body.data.updated_at.replace(/\.\d+Z$/, 'Z')).toBe(true);
  });

  it("stamps v3's upsert by e-mail with the time of its write too", async () => {
    const client = await aClient(world.stack);
    const x = await aContact(world.stack.db, client.member, { name: 'X', email: 'upsert-stamp@example.test' });
    const [upserted, single] = await whileHeld(
      // The upsert's transaction waits on its (member, e-mail) lock before it writes the row.
      (holder) =>
        holder.raw('select pg_advisory_xact_lock(?, hashtext(lower(?)))', [
          client.member.id,
          'upsert-stamp@example.test',
        ]),
      () =>
        client.request('/v3/contacts', {
          method: 'POST',
          body: new URLSearchParams({ name: 'X', email: 'upsert-stamp@example.test', state: 'V3' }),
        }),
      () => update(client, x, { city: 'Single' }),
    );
    expect(upserted.status).toBe(200);
    const row = (await rowOf(x))!;
    expect(row.updated_at.getTime()).toBeGreaterThan(new Date(single.body.data.updated_at).getTime());
    expect((await client.json<One>(`/v4/contacts/${x}`)).body.data).toMatchObject({ city: 'Single', state: 'V3' });
  });
});

describe('an update that changes nothing writes nothing', () => {
  it('keeps updated_at, the ETag and the change feed as they were for {} and for the stored values (v4)', async () => {
    const client = await aClient(world.stack);
    const category = await aCategory(world.stack.db);
    const created = await client.json<One>('/v4/contacts', {
      method: 'POST',
      json: {
        name: 'Still',
        email: 'still@example.test',
        city: 'Oslo',
        business_category_id: category.id,
        join_date: '2020-01-31',
      },
    });
    const id = created.body.data.id;
    const etag = created.response.headers.get('etag')!;
    const before = await rowOf(id);
    const token = await syncToken(client);

    for (const json of [
      {},
      { name: 'Still', email: 'still@example.test', city: 'Oslo' },
      { business_category_id: category.id, join_date: '2020-01-31', country: null, website: '' },
      created.body.data,
    ]) {
      const answer = await update(client, id, json, { 'if-match': etag });
      expect(answer.status, JSON.stringify(json)).toBe(200);
      expect(answer.body.data).toEqual(created.body.data);
      expect(answer.response.headers.get('etag')).toBe(etag);
    }
    expect(await rowOf(id)).toEqual(before);
    expect(await changesSince(client, token)).toMatchObject({ data: [], deleted: [] });

    // A real change still is one.
    const changed = await update(client, id, { city: 'Bergen' }, { 'if-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.response.headers.get('etag')).not.toBe(etag);
    expect(changed.body.data.updated_at > created.body.data.updated_at).toBe(true);
    expect((await changesSince(client, token)).data.map((contact) => contact.id)).toEqual([id]);
    // A change of case is a change.
    const recased = await update(client, id, { email: 'STILL@example.test' });
    expect(recased.body.data.updated_at > changed.body.data.updated_at).toBe(true);
  });

  it('answers 404, 412 and 422 for a change-nothing update as before, writing nothing', async () => {
    const client = await aClient(world.stack);
    const other = await aClient(world.stack);
    const id = await aContact(world.stack.db, client.member, { name: 'Guarded' });
    const before = await rowOf(id);
    expect((await update(client, 2_000_000_000, {})).status).toBe(404);
    expect((await update(other, id, {})).status).toBe(404);
    const stale = await update(client, id, {}, { 'if-match': '"stale"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('precondition_failed');
    const invalid = await update(client, id, { name: '' });
    expect(invalid.status).toBe(422);
    const unknownCategory = await update(client, id, { business_category_id: 2_000_000_000 });
    expect(unknownCategory.status).toBe(422);
    expect(await rowOf(id)).toEqual(before);
  });

  it('keeps the contact as it was for a batch update, a v3 PATCH and a v3 upsert that change nothing', async () => {
    const client = await aClient(world.stack);
    const created = await client.json<One>('/v4/contacts', {
      method: 'POST',
      json: { name: 'Same', email: 'same@example.test', address: '1 Main St', zipcode: '0150' },
    });
    const id = created.body.data.id;
    const etag = created.response.headers.get('etag')!;
    const before = await rowOf(id);
    const token = await syncToken(client);

    const batched = await client.json<{ data: Contact[] }>('/v4/contacts/batch', {
      method: 'POST',
      json: {
        operations: [
          { op: 'update', id, contact: { name: 'Same', zipcode: '0150' }, if_match: etag },
          { op: 'update', id, contact: {}, if_match: etag },
        ],
      },
    });
    expect(batched.status).toBe(200);
    // The contact as it was, with the same etag (a batch's contact results carry theirs).
    const unchanged = { ...created.body.data, etag };
    expect(batched.body.data).toEqual([unchanged, unchanged]);
    const patched = await client.request(`/v3/contacts/${id}`, {
      method: 'PATCH',
      body: new URLSearchParams({ name: 'Same', street: '1 Main St', email: 'same@example.test' }),
    });
    expect(patched.status).toBe(200);
    const upserted = await client.request('/v3/contacts', {
      method: 'POST',
      body: new URLSearchParams({ name: 'Same', email: 'same@example.test', zipcode: '0150' }),
    });
    expect(upserted.status).toBe(200);
    expect(await rowOf(id)).toEqual(before);
    expect(await changesSince(client, token)).toMatchObject({ data: [], deleted: [] });
    expect((await client.request(`/v4/contacts/${id}`)).headers.get('etag')).toBe(etag);
  });

  it('counts the same image sent again as no change, and another image as one', async () => {
    const client = await aClient(world.stack);
    const created = await client.request('/v4/contacts', {
      method: 'POST',
      body: multipart({ name: 'Pictured' }, { bytes: PNG, filename: 'a.png', type: 'image/png' }),
    });
    const { data } = (await created.json()) as One;
    const etag = created.headers.get('etag')!;
    const before = await rowOf(data.id);
    const token = await syncToken(client);

    const again = await client.request(`/v4/contacts/${data.id}`, {
      method: 'POST',
      body: multipart({ name: 'Pictured' }, { bytes: PNG, filename: 'b.png', type: 'image/png' }),
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await rowOf(data.id)).toEqual(before);
    expect(await changesSince(client, token)).toMatchObject({ data: [], deleted: [] });

    const replaced = await client.request(`/v4/contacts/${data.id}`, {
      method: 'POST',
      body: multipart({}, { bytes: JPEG, filename: 'c.jpg', type: 'image/jpeg' }),
    });
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('etag')).not.toBe(etag);
    expect(((await replaced.json()) as One).data.updated_at > data.updated_at).toBe(true);
    expect((await changesSince(client, token)).data.map((contact) => contact.id)).toEqual([data.id]);
  });
});
