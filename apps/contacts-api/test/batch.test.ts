import { describe, expect, it } from 'vitest';
import { DomainError, notGroupMember } from '../src/domain/errors';
import { batchRefusal } from '../src/routes/v4/batch-refusal';
import { aCategory, aClient, aContact, aGroup, type Client } from './support/factories';
import { useStack } from './support/use-stack';

interface Contact {
  id: number;
  [key: string]: unknown;
}
type Batch = { data: Array<Contact | { id: number; deleted: true }> };
type Failure = { error: { code: string; message: string; fields?: Record<string, string[]> } };

const world = useStack({ client: false });

const batch = (client: Client, operations: unknown) =>
  client.json<Batch & Failure>('/v4/contacts/batch', { method: 'POST', json: { operations } });
const countOf = async (client: Client) =>
  Number(
    (await world.stack.db('contacts').where({ owner_id: client.member.id }).count<{ count: string }[]>('*'))[0]!.count,
  );

describe('POST /v4/contacts/batch', () => {
  it('applies creates, updates and deletes in order and answers one result per operation', async () => {
    const client = await aClient(world.stack);
    const existing = await aContact(world.stack.db, client.member, { name: 'Before' });
    const doomed = await aContact(world.stack.db, client.member);
    const etag = (await client.request(`/v4/contacts/${existing}`)).headers.get('etag')!;
    const { status, body } = await batch(client, [
      { op: 'create', contact: { name: 'New', email: 'new@example.test', address: '1 Main St' } },
      { op: 'update', id: existing, contact: { name: 'After' }, if_match: etag },
      { op: 'delete', id: doomed },
    ]);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(3);
    expect(body.data[0]).toMatchObject({ name: 'New', email: 'new@example.test', address: '1 Main St' });
    expect(body.data[1]).toMatchObject({ id: existing, name: 'After' });
    expect(body.data[2]).toEqual({ id: doomed, deleted: true });
    const read = await client.json<{ data: Contact }>(`/v4/contacts/${(body.data[0] as Contact).id}`);
    expect(read.body.data.name).toBe('New');
    expect(await world.stack.db('contacts').where({ id: doomed }).first()).toBeUndefined();
  });

  it("gives each created or updated contact its etag, GET's ETag header for it, and none to a delete's result", async () => {
    const client = await aClient(world.stack);
    const category = await aCategory(world.stack.db);
    const existing = await aContact(world.stack.db, client.member, { name: 'Before' });
    const doomed = await aContact(world.stack.db, client.member);
    const operations = [
      // A run of creates (written together), an update, a lone create, a delete.
      { op: 'create', contact: { name: 'Run A', business_category_id: category.id } },
      { op: 'create', contact: { name: 'Run B', email: 'b@example.test' } },
      { op: 'update', id: existing, contact: { city: 'Oslo' } },
      { op: 'create', contact: { name: 'Alone' } },
      { op: 'delete', id: doomed },
    ];
    const key = `etag-${existing}`;
    const send = () =>
      client.json<Batch>('/v4/contacts/batch', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        json: { operations },
      });
    /** Each contact result is the contact GET answers, plus its ETag header as `etag`. */
    const expectAsRead = async (results: Batch['data'], contacts: number) => {
      for (const { etag, ...contact } of results.slice(0, contacts) as Contact[]) {
        const response = await client.request(`/v4/contacts/${contact.id}`);
        expect(etag, `contact ${contact.id}`).toEqual(expect.stringMatching(/^"[^"]+"$/));
        expect(etag, `contact ${contact.id}`).toBe(response.headers.get('etag'));
        expect(contact).toEqual(((await response.json()) as { data: Contact }).data);
      }
    };

    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await expectAsRead(first.body.data, 4);
    expect(first.body.data[4]).toEqual({ id: doomed, deleted: true });
    // Replayed for the same key: the contacts as they are now, with their etags.
    const replayed = await send();
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    await expectAsRead(replayed.body.data, 4);
    expect(replayed.body.data[4]).toEqual({ id: doomed, deleted: true });

    // An update's etag is the if_match of the next write.
    const updated = first.body.data[2] as Contact;
    const next = await batch(client, [
      { op: 'update', id: existing, contact: { city: 'Bergen' }, if_match: updated.etag },
    ]);
    expect(next.status).toBe(200);
    await expectAsRead(next.body.data, 1);
    expect((next.body.data[0] as Contact).etag).not.toBe(updated.etag);
  });

  it('writes nothing when any operation breaks a rule, naming the operation in the error key', async () => {
    const client = await aClient(world.stack);
    const other = await aClient(world.stack);
    const foreign = await aContact(world.stack.db, other.member);
    const strangersGroup = await aGroup(world.stack.db, [other.member]);
    await aContact(world.stack.db, client.member, { email: 'taken@example.test' });
    const before = await countOf(client);
    const cases: Array<[unknown[], string]> = [
      [
        [
          { op: 'create', contact: { name: 'Ok' } },
          { op: 'update', id: foreign, contact: { name: 'X' } },
        ],
        'operations[1].id',
      ],
      [
        [
          { op: 'create', contact: { name: 'Ok' } },
          { op: 'create', contact: { name: 'G', group_id: strangersGroup.id } },
        ],
        'operations[1].contact.group_id',
      ],
      [
        [
          { op: 'create', contact: { name: 'Ok' } },
          { op: 'create', contact: { name: 'Dup', email: 'TAKEN@example.test' } },
        ],
        'operations[1].contact.email',
      ],
      [
        [
          { op: 'create', contact: { name: 'First', email: 'twice@example.test' } },
          { op: 'create', contact: { name: 'Between' } },
          { op: 'create', contact: { name: 'Second', email: 'Twice@example.test' } },
        ],
        'operations[2].contact.email',
      ],
    ];
    for (const [operations, key] of cases) {
      const { status, body } = await batch(client, operations);
      expect(status, key).toBe(422);
      expect(body.error.code).toBe('validation_failed');
      expect(Object.keys(body.error.fields ?? {}), key).toEqual([key]);
    }
    expect(await countOf(client)).toBe(before);
  });

  it('answers a run of creates in the order given, each with its own new id, around other operations', async () => {
    const client = await aClient(world.stack);
    const existing = await aContact(world.stack.db, client.member);
    const names = Array.from({ length: 60 }, (_, i) => `Run ${i}`);
    const { status, body } = await batch(client, [
      ...names
        .slice(0, 30)
        .map((name) => ({ op: 'create', contact: { name, email: `${name.replace(' ', '-')}@example.test` } })),
      { op: 'update', id: existing, contact: { name: 'Updated between' } },
      ...names.slice(30).map((name) => ({ op: 'create', contact: { name } })),
    ]);
    expect(status).toBe(200);
    const created = (body.data as Array<{ id: number; name: string; email: string | null }>).filter((row) =>
      row.name.startsWith('Run '),
    );
    expect(created.map((row) => row.name)).toEqual(names);
    expect(new Set(created.map((row) => row.id)).size).toBe(60);
    expect(body.data[30]).toMatchObject({ id: existing, name: 'Updated between' });
    expect(created[0]?.email).toBe('Run-0@example.test');
    for (const row of created) {
      const read = await world.stack.db('contacts').where({ id: row.id }).first('name', 'owner_id');
      expect(read).toEqual({ name: row.name, owner_id: client.member.id });
    }
  });

  it("skips a delete of a contact the caller does not have (deleted meanwhile, or another member's): deleted false, the rest written; with if_match it is 412", async () => {
    const client = await aClient(world.stack);
    const other = await aClient(world.stack);
    const foreign = await aContact(world.stack.db, other.member);
    const gone = await aContact(world.stack.db, client.member);
    const kept = await aContact(world.stack.db, client.member);
    await client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [gone] } });
    const { status, body } = await batch(client, [
      { op: 'update', id: kept, contact: { city: 'Queued offline' } },
      { op: 'delete', id: gone },
      { op: 'delete', id: foreign },
    ]);
    expect(status).toBe(200);
    expect(body.data).toEqual([
      expect.objectContaining({ id: kept, city: 'Queued offline' }),
      { id: gone, deleted: false },
      { id: foreign, deleted: false },
    ]);
    expect(await world.stack.db('contacts').where({ id: foreign }).first()).toBeDefined();

    const conditional = await batch(client, [
      { op: 'update', id: kept, contact: { city: 'Not written' } },
      { op: 'delete', id: gone, if_match: '"0123456789abcdef0123456789abcdef"' },
    ]);
    expect(conditional.status).toBe(412);
    expect((await world.stack.db('contacts').where({ id: kept }).first())?.city).toBe('Queued offline');
  });

  it('validates every operation first and lists every problem under its operation key', async () => {
    const client = await aClient(world.stack);
    const { status, body } = await batch(client, [
      { op: 'create', contact: { name: 'Fine' } },
      { op: 'create', contact: { name: 'Bad', email: 'not-an-email' } },
      { op: 'update', id: 0, contact: {} },
      { op: 'launch' },
      { op: 'delete' },
      { op: 'create', contact: 'text' },
      { op: 'create', contact: { name: '' } },
      // A bad id and bad fields in one operation: all of them.
      { op: 'update', id: -1, if_match: 'unquoted', contact: { email: 'bad', zipcode: '1234567' } },
    ]);
    expect(status).toBe(422);
    expect(Object.keys(body.error.fields ?? {}).sort()).toEqual([
      'operations[1].contact.email',
      'operations[2].id',
      'operations[3].op',
      'operations[4].id',
      'operations[5].contact',
      'operations[6].contact.name',
      'operations[7].contact.email',
      'operations[7].contact.zipcode',
      'operations[7].id',
      'operations[7].if_match',
    ]);
    expect(await countOf(client)).toBe(0);
  });

  it('refuses a join_date PostgreSQL cannot store and ids past the integer range, naming the operation', async () => {
    const client = await aClient(world.stack);
    const existing = await aContact(world.stack.db, client.member, { name: 'Kept' });
    const { status, body } = await batch(client, [
      { op: 'create', contact: { name: 'Year zero', join_date: '0000-01-01' } },
      { op: 'update', id: existing, contact: { join_date: '0000-02-29' } },
      { op: 'update', id: 2_147_483_648, contact: { name: 'X' } },
      { op: 'delete', id: 2_147_483_648 },
      { op: 'create', contact: { name: 'Group', group_id: '2147483648' } },
    ]);
    expect(status).toBe(422);
    expect(Object.keys(body.error.fields ?? {})).toEqual([
      'operations[0].contact.join_date',
      'operations[1].contact.join_date',
      'operations[2].id',
      'operations[3].id',
      'operations[4].contact.group_id',
    ]);
    expect(await world.stack.db('contacts').where({ owner_id: client.member.id }).pluck('name')).toEqual(['Kept']);
  });

  it('refuses an empty batch, more than 200 operations and a body that is not a batch with 422', async () => {
    const client = await aClient(world.stack);
    for (const operations of [[], Array.from({ length: 201 }, () => ({ op: 'create', contact: { name: 'N' } })), 'x']) {
      const { status, body } = await batch(client, operations);
      expect(status).toBe(422);
      expect(Object.keys(body.error.fields ?? {})).toEqual(['operations']);
    }
    expect(await countOf(client)).toBe(0);
    const twoHundred = await batch(
      client,
      Array.from({ length: 200 }, (_, index) => ({ op: 'create', contact: { name: `N${index}` } })),
    );
    expect(twoHundred.status).toBe(200);
    expect(await countOf(client)).toBe(200);
  });

  it('answers 412 for a stale if_match and writes nothing', async () => {
    const client = await aClient(world.stack);
    const id = await aContact(world.stack.db, client.member, { name: 'Current' });
    const { status, body } = await batch(client, [
      { op: 'create', contact: { name: 'Not kept' } },
      { op: 'update', id, contact: { name: 'Lost update' }, if_match: '"stale"' },
    ]);
    expect(status).toBe(412);
    expect(body.error.code).toBe('precondition_failed');
    expect(await world.stack.db('contacts').where({ owner_id: client.member.id }).pluck('name')).toEqual(['Current']);
  });

  it('deletes only while the contact is as last seen when a delete names if_match, and writes nothing else otherwise', async () => {
    const client = await aClient(world.stack);
    const id = await aContact(world.stack.db, client.member, { name: 'Seen' });
    const seen = (await client.request(`/v4/contacts/${id}`)).headers.get('etag')!;
    await client.json(`/v4/contacts/${id}`, { method: 'POST', json: { name: 'Changed elsewhere' } });
    const stale = await batch(client, [
      { op: 'create', contact: { name: 'Not kept' } },
      { op: 'delete', id, if_match: seen },
    ]);
    expect(stale.status).toBe(412);
    expect(stale.body.error.message).toContain('Operation 1');
    expect(Object.keys(stale.body.error.fields ?? {})).toEqual(['operations[1].if_match']);
    expect(await world.stack.db('contacts').where({ owner_id: client.member.id }).pluck('name')).toEqual([
      'Changed elsewhere',
    ]);
    const current = (await client.request(`/v4/contacts/${id}`)).headers.get('etag')!;
    const done = await batch(client, [{ op: 'delete', id, if_match: current }]);
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual([{ id, deleted: true }]);
    // Deleted: no contact matches the tag any more.
    const gone = await batch(client, [{ op: 'delete', id, if_match: current }]);
    expect(gone.status).toBe(412);
    // An if_match that is no entity tag (the quotes dropped) is refused as such, not taken for a change.
    const unquoted = await batch(client, [{ op: 'update', id, contact: {}, if_match: current.replaceAll('"', '') }]);
    expect(unquoted.status).toBe(422);
    expect(unquoted.body.error.fields?.['operations[0].if_match']).toEqual([
      'The if_match must be one entity tag, quotes included (the ETag of the contact as read).',
    ]);
  });

  it('needs the write scope', async () => {
    const reader = await aClient(world.stack, { scopes: ['contacts:read'] });
    const { status } = await batch(reader, [{ op: 'create', contact: { name: 'N' } }]);
    expect(status).toBe(403);
  });
});

describe('batchRefusal', () => {
  it("reports the group rule on the operation's contact.group_id (422), and no other forbidden rule there", () => {
    const group = batchRefusal(notGroupMember(), 1);
    expect([group.status, group.code, group.fields]).toEqual([
      422,
      'validation_failed',
      { 'operations[1].contact.group_id': ['You are not a member of this group.'] },
    ]);
    // A refusal of another kind of forbidden (none a batch can meet yet) names the operation, not a field.
    const other = batchRefusal(
      new DomainError('forbidden', 'Only the member who created this contact can delete it.'),
      2,
    );
    expect([other.status, other.code, other.message, other.fields]).toEqual([
      403,
      'forbidden',
      'Operation 2: Only the member who created this contact can delete it.',
      { 'operations[2]': ['Only the member who created this contact can delete it.'] },
    ]);
  });
});
