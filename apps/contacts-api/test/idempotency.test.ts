import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { IDEMPOTENCY_KEY_TTL_SECONDS, insertIdempotencyRecord } from '@contacts/db';
import { describe, expect, it } from 'vitest';
import { aClient, aContact, type Client, JPEG, multipart } from './support/factories';
import { useStack } from './support/use-stack';

interface Contact {
  id: number;
  name: string;
  [key: string]: unknown;
}
type One = { data: Contact };
type Batch = { data: Array<Contact | { id: number; deleted: true }> };
type Failure = { error: { code: string; message: string; fields?: Record<string, string[]> } };

const world = useStack();

const REPLAYED = 'idempotent-replayed';

const create = (client: Client, key: string | undefined, json: unknown) =>
  client.json<One & Failure>('/v4/contacts', {
    method: 'POST',
    json,
    ...(key !== undefined ? { headers: { 'idempotency-key': key } } : {}),
  });

const contactsNamed = async (ownerId: number, name: string) =>
  (await world.stack.db('contacts').where({ owner_id: ownerId, name }).pluck('id')) as number[];

const keyRows = async (memberId: number) =>
  Number(
    (
      await world.stack.db('idempotency_keys').where({ member_id: memberId }).count<{ count: number }[]>('* as count')
    )[0]?.count,
  );

describe('Idempotency-Key on POST /v4/contacts', () => {
  it('answers a repeated request with the first answer (same id, Location, ETag, replay header) and creates one contact', async () => {
    const key = randomUUID();
    const name = `Once ${key}`;
    const first = await create(world.client, key, { name, city: 'Oslo' });
    expect(first.status).toBe(201);
    expect(first.response.headers.get(REPLAYED)).toBeNull();

    const again = await create(world.client, key, { name, city: 'Oslo' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.response.headers.get(REPLAYED)).toBe('true');
    expect(again.response.headers.get('location')).toBe(first.response.headers.get('location'));
    expect(again.response.headers.get('etag')).toBe(first.response.headers.get('etag'));
    // The draft's quoted form (an sf-string) names the same key; so does the same body in another key order.
    const quoted = await create(world.client, `"${key}"`, { city: 'Oslo', name });
    expect(quoted.status).toBe(201);
    expect(quoted.body.data.id).toBe(first.body.data.id);
    expect(quoted.response.headers.get(REPLAYED)).toBe('true');

    expect(await contactsNamed(world.client.member.id, name)).toEqual([first.body.data.id]);
  });

  it('replays a multipart create with an image, sent again with another boundary, without a second contact', async () => {
    const key = randomUUID();
    const name = `Pictured ${key}`;
    const send = () =>
      world.client.request('/v4/contacts', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: multipart({ name }, { bytes: JPEG, filename: 'a.jpg', type: 'image/jpeg' }),
      });
    const first = await send();
    const again = await send();
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get(REPLAYED)).toBe('true');
    expect(((await again.json()) as One).data.id).toBe(((await first.json()) as One).data.id);
    expect(await contactsNamed(world.client.member.id, name)).toHaveLength(1);
  });

  it('replays the contact as it is now, and 404 once it has been deleted', async () => {
    const key = randomUUID();
    const first = await create(world.client, key, { name: `Then ${key}` });
    const id = first.body.data.id;
    await world.client.json(`/v4/contacts/${id}`, { method: 'POST', json: { name: `Now ${key}` } });

    const replay = await create(world.client, key, { name: `Then ${key}` });
    expect(replay.status).toBe(201);
    expect(replay.body.data).toMatchObject({ id, name: `Now ${key}` });
    expect(replay.response.headers.get('etag')).not.toBe(first.response.headers.get('etag'));

    await world.client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [id] } });
    const gone = await create(world.client, key, { name: `Then ${key}` });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
    expect(gone.response.headers.get(REPLAYED)).toBe('true');
    expect(await contactsNamed(world.client.member.id, `Then ${key}`)).toEqual([]);
  });

  it('refuses the same key with a different body, or on another path, with 422 idempotency_key_reused, writing nothing', async () => {
    const key = randomUUID();
    const first = await create(world.client, key, { name: `First ${key}` });
    expect(first.status).toBe(201);

    const other = await create(world.client, key, { name: `Second ${key}` });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');

    const batch = await world.client.json<Failure>('/v4/contacts/batch', {
      method: 'POST',
      headers: { 'idempotency-key': key },
      json: { operations: [{ op: 'create', contact: { name: `First ${key}` } }] },
    });
    expect(batch.status).toBe(422);
    expect(batch.body.error.code).toBe('idempotency_key_reused');

    expect(await contactsNamed(world.client.member.id, `Second ${key}`)).toEqual([]);
    expect(await contactsNamed(world.client.member.id, `First ${key}`)).toEqual([first.body.data.id]);
  });

  it('replays a retry whose body parses to the same input: unknown fields, padding that is trimmed, null, empty or absent', async () => {
    const key = randomUUID();
    const name = `Parsed ${key}`;
    const first = await create(world.client, key, { name, city: 'Oslo', business_category_id: null });
    expect(first.status).toBe(201);
    for (const retry of [
      { name, city: 'Oslo', business_category_id: null, unknown_field: 'ignored' },
      { name: `  ${name}\t`, city: ' Oslo ', business_category_id: null },
      // A create's field sent null or empty creates what an absent one does: no value.
      { name, city: 'Oslo' },
      { name, city: 'Oslo', state: null, website: '', business_category_id: '' },
    ]) {
      const again = await create(world.client, key, retry);
      expect(again.status, JSON.stringify(retry)).toBe(201);
      expect(again.response.headers.get(REPLAYED)).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
    }
    const other = await create(world.client, key, { name, city: 'Bergen' });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(await contactsNamed(world.client.member.id, name)).toEqual([first.body.data.id]);
  });

  it('never replays a record whose fingerprint was made by the former recipe (raw body fields): 422 instead', async () => {
    const key = randomUUID();
    const name = `Recorded before ${key}`;
    const other = await aContact(world.stack.db, world.client.member, { name: `Other ${key}` });
    // What the former requestFingerprint made of this very request: the body's fields and files.
    const former = createHash('sha256')
      .update(`POST /v4/contacts\n${JSON.stringify([{ name }, []])}`)
      .digest('base64url');
    await world.stack.db.transaction((trx) =>
      insertIdempotencyRecord(trx, world.client.member.id, key, {
        fingerprint: former,
        status: 201,
        resultIds: [other],
      }),
    );
    const retry = await create(world.client, key, { name });
    expect(retry.status).toBe(422);
    expect(retry.body.error.code).toBe('idempotency_key_reused');
    expect(await contactsNamed(world.client.member.id, name)).toEqual([]);
  });

  it('creates exactly one contact for many concurrent requests with one key; the others get 409 or the replay, never a 500', async () => {
    for (let round = 0; round < 3; round++) {
      const key = randomUUID();
      const name = `Concurrent ${key}`;
      const answers = await Promise.all(Array.from({ length: 12 }, () => create(world.client, key, { name })));

      const statuses = answers.map((answer) => answer.status);
      expect(
        statuses.every((status) => status === 201 || status === 409),
        statuses.join(),
      ).toBe(true);
      const written = answers.filter((answer) => answer.status === 201 && !answer.response.headers.get(REPLAYED));
      expect(written).toHaveLength(1);
      const ids = new Set(answers.filter((answer) => answer.status === 201).map((answer) => answer.body.data.id));
      expect(ids.size).toBe(1);
      for (const refused of answers.filter((answer) => answer.status === 409)) {
        expect(refused.body.error.code).toBe('idempotency_key_in_use');
        expect(refused.response.headers.get('retry-after')).toBe('1');
      }
      expect(await contactsNamed(world.client.member.id, name)).toEqual([...ids]);
      console.log(
        `one key, 12 requests at once, round ${round + 1}: 1 written, ${answers.length - 1 - statuses.filter((status) => status === 409).length} replayed, ${statuses.filter((status) => status === 409).length} × 409`,
      );
    }
  });

  it('answers 409 while the first request with the key still runs, and writes nothing', async () => {
    const key = randomUUID();
    const name = `Waiting ${key}`;
    // Stands in for a first request mid-transaction: it holds the key as writeOncePerKey does.
    await world.stack.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${world.client.member.id}\n${key}`]);
      const during = await create(world.client, key, { name });
      expect(during.status).toBe(409);
      expect(during.body.error.code).toBe('idempotency_key_in_use');
    });
    expect(await contactsNamed(world.client.member.id, name)).toEqual([]);

    const after = await create(world.client, key, { name });
    expect(after.status).toBe(201);
    expect(after.response.headers.get(REPLAYED)).toBeNull();
  });

  it('does not remember a refused request: the client corrects it and sends it again with the same key', async () => {
    const key = randomUUID();
    const invalid = await create(world.client, key, { name: '' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe('validation_failed');
    // A rule checked in the transaction (the e-mail is taken): rolled back with its key record.
    const email = `taken-${key}@example.test`;
    await aContact(world.stack.db, world.client.member, { email });
    const taken = await create(world.client, key, { name: `Fixed ${key}`, email });
    expect(taken.status).toBe(422);
    expect(taken.body.error.fields?.email).toBeDefined();
    expect(
      await world.stack.db('idempotency_keys').where({ member_id: world.client.member.id, key }).first(),
    ).toBeUndefined();

    const fixed = await create(world.client, key, { name: `Fixed ${key}` });
    expect(fixed.status).toBe(201);
    expect(fixed.response.headers.get(REPLAYED)).toBeNull();
    const replay = await create(world.client, key, { name: `Fixed ${key}` });
    expect(replay.response.headers.get(REPLAYED)).toBe('true');
    expect(replay.body.data.id).toBe(fixed.body.data.id);
  });

  it('scopes keys per member: two members using one key each get their own contact', async () => {
    const bob = await aClient(world.stack);
    const key = randomUUID();
    const adas = await create(world.client, key, { name: `Ada's ${key}` });
    const bobs = await create(bob, key, { name: `Bob's ${key}` });
    expect([adas.status, bobs.status]).toEqual([201, 201]);
    expect(bobs.response.headers.get(REPLAYED)).toBeNull();
    expect(bobs.body.data.id).not.toBe(adas.body.data.id);
    // The same body as Ada's is no replay of hers either.
    const same = await create(bob, randomUUID(), { name: `Ada's ${key}` });
    expect(same.response.headers.get(REPLAYED)).toBeNull();
    expect(await contactsNamed(bob.member.id, `Bob's ${key}`)).toEqual([bobs.body.data.id]);
  });

  it('forgets a key after IDEMPOTENCY_KEY_TTL_SECONDS: the same request then creates again', async () => {
    expect(IDEMPOTENCY_KEY_TTL_SECONDS).toBe(24 * 3600);
    const key = randomUUID();
    const name = `Expiring ${key}`;
    const first = await create(world.client, key, { name });
    const row = await world.stack
      .db('idempotency_keys')
      .where({ member_id: world.client.member.id, key })
      .first('expires_at');
    const lifetime = (row.expires_at.getTime() - Date.now()) / 1000;
    expect(lifetime).toBeGreaterThan(IDEMPOTENCY_KEY_TTL_SECONDS - 60);
    expect(lifetime).toBeLessThanOrEqual(IDEMPOTENCY_KEY_TTL_SECONDS + 60);

    await world.stack
      .db('idempotency_keys')
      .where({ member_id: world.client.member.id, key })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const later = await create(world.client, key, { name });
    expect(later.status).toBe(201);
    expect(later.response.headers.get(REPLAYED)).toBeNull();
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });

  it('refuses a malformed key with 400 in the v4 error shape, before reading the body', async () => {
    for (const key of ['', 'x'.repeat(256), 'caf\u00e9', '"unterminated', '"a"b', '"bad\\escape"', '""']) {
      const answer = await create(world.client, key, { name: '' });
      expect(answer.status, JSON.stringify(key)).toBe(400);
      expect(answer.body.error.code).toBe('bad_request');
      expect(answer.body.error.message).toMatch(/Idempotency-Key/);
    }
    expect((await create(world.client, 'x'.repeat(255), { name: `Longest ${randomUUID()}` })).status).toBe(201);
    expect((await create(world.client, '~ !"#', { name: `Printable ${randomUUID()}` })).status).toBe(201);

    // Two fields (fetch would join them into one): raw HTTP.
    const twice = await new Promise<{ status: number; body: Failure }>((resolve, reject) => {
      const request = httpRequest(`${world.stack.apiUrl}/v4/contacts`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${world.client.token}`,
          'content-type': 'application/json',
          'idempotency-key': ['one', 'two'],
        },
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Failure }));
      });
      request.on('error', reject);
      request.end(JSON.stringify({ name: 'Twice' }));
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toMatch(/more than once/);
  });

  it('costs a request without the header nothing: no key record is written', async () => {
    const carol = await aClient(world.stack);
    expect((await create(carol, undefined, { name: 'Plain' })).status).toBe(201);
    expect((await create(carol, undefined, { name: 'Plain' })).status).toBe(201);
    expect(await contactsNamed(carol.member.id, 'Plain')).toHaveLength(2);
    expect(await keyRows(carol.member.id)).toBe(0);
  });
});

describe('Idempotency-Key on POST /v4/contacts/batch', () => {
  it('answers a repeated batch with its results as they are now, without running it again', async () => {
    const key = randomUUID();
    const kept = await aContact(world.stack.db, world.client.member, { name: `Kept ${key}` });
    const removed = await aContact(world.stack.db, world.client.member, { name: `Removed ${key}` });
    const body = {
      operations: [
        { op: 'create', contact: { name: `Batch A ${key}` } },
        { op: 'create', contact: { name: `Batch B ${key}` } },
        { op: 'update', id: kept, contact: { city: 'Bergen' } },
        { op: 'delete', id: removed },
        // No such contact: nothing to delete, "deleted":false, and so again in every replay.
        { op: 'delete', id: 2_147_483_600 },
      ],
    };
    const send = () =>
      world.client.json<Batch>('/v4/contacts/batch', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        json: body,
      });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.response.headers.get(REPLAYED)).toBeNull();
    expect(first.body.data.slice(3)).toEqual([
      { id: removed, deleted: true },
      { id: 2_147_483_600, deleted: false },
    ]);

    const again = await send();
    expect(again.status).toBe(200);
    expect(again.response.headers.get(REPLAYED)).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await contactsNamed(world.client.member.id, `Batch A ${key}`)).toHaveLength(1);
    expect(await contactsNamed(world.client.member.id, `Batch B ${key}`)).toHaveLength(1);

    // As of now: a created contact deleted since is reported deleted.
    const createdA = (first.body.data[0] as Contact).id;
    await world.client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [createdA] } });
    const later = await send();
    expect(later.body.data[0]).toEqual({ id: createdA, deleted: true });
    expect(later.body.data.slice(1)).toEqual(first.body.data.slice(1));
  });

  it('replays a batch that parses to the same operations; an update sending null (clear) is not one leaving the field out (keep)', async () => {
    const key = randomUUID();
    const kept = await aContact(world.stack.db, world.client.member, { name: `Kept ${key}` });
    const send = (operations: unknown[]) =>
      world.client.json<Batch & Failure>('/v4/contacts/batch', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        json: { operations },
      });
    const first = await send([
      { op: 'create', contact: { name: `Batched ${key}`, city: null } },
      { op: 'update', id: kept, contact: { city: 'Bergen' } },
    ]);
    expect(first.status).toBe(200);
    const again = await send([
      { op: 'create', contact: { name: ` Batched ${key} `, extra: true } },
      { op: 'update', id: kept, contact: { city: 'Bergen ', extra: 1 } },
    ]);
    expect(again.status).toBe(200);
    expect(again.response.headers.get(REPLAYED)).toBe('true');
    expect(again.body).toEqual(first.body);
    const clearing = await send([
      { op: 'create', contact: { name: `Batched ${key}` } },
      { op: 'update', id: kept, contact: { city: 'Bergen', state: null } },
    ]);
    expect(clearing.status).toBe(422);
    expect(clearing.body.error.code).toBe('idempotency_key_reused');
    expect(await contactsNamed(world.client.member.id, `Batched ${key}`)).toHaveLength(1);
  });

  it('does not remember a refused batch', async () => {
    const key = randomUUID();
    const send = (operations: unknown[]) =>
      world.client.json<Batch & Failure>('/v4/contacts/batch', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        json: { operations },
      });
    const refused = await send([
      { op: 'create', contact: { name: `Refused ${key}` } },
      { op: 'update', id: 2_000_000_000, contact: { city: 'Nowhere' } },
    ]);
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('validation_failed');
    expect(await contactsNamed(world.client.member.id, `Refused ${key}`)).toEqual([]);
    const corrected = await send([{ op: 'create', contact: { name: `Refused ${key}` } }]);
    expect(corrected.status).toBe(200);
    expect(corrected.response.headers.get(REPLAYED)).toBeNull();
  });
});

describe('Idempotency-Key elsewhere', () => {
  it('leaves v3 as it was: POST /v3/contacts ignores the header (its own upsert answers) and records no key', async () => {
    const dora = await aClient(world.stack);
    const key = randomUUID();
    const send = () =>
      dora.request('/v3/contacts', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: new URLSearchParams({ name: 'Dora', email: `dora-${key}@example.test` }),
      });
    const plain = await dora.request('/v3/contacts', {
      method: 'POST',
      body: new URLSearchParams({ name: 'Plain', email: `plain-${key}@example.test` }),
    });
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual([201, 200]);
    for (const response of [first, second]) expect(response.headers.get(REPLAYED)).toBeNull();
    const keysOf = async (response: Response) => Object.keys((await response.json()) as object).sort();
    expect(await keysOf(first)).toEqual(await keysOf(plain));
    expect(await keyRows(dora.member.id)).toBe(0);
  });

  it('lets a browser app send the header and read the replay header (CORS)', async () => {
    const origin = 'https://app.example';
    const preflight = await fetch(`${world.stack.apiUrl}/v4/contacts`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(allowed).toContain('idempotency-key');

    const key = randomUUID();
    const send = () =>
      world.client.json<One>('/v4/contacts', {
        method: 'POST',
        headers: { origin, 'idempotency-key': key },
        json: { name: `Browser ${key}` },
      });
    await send();
    const replay = await send();
    const exposed = (replay.response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(exposed).toContain(REPLAYED);
  });

  it('is in the OpenAPI document of both creating operations, with its 409 and 422 answers', async () => {
    const document = (await (await fetch(`${world.stack.apiUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{ name: string; in: string }>;
            responses: Record<string, { description: string; headers?: Record<string, unknown> }>;
          }
        >
      >;
    };
    for (const [path, success] of [
      ['/v4/contacts', '201'],
      ['/v4/contacts/batch', '200'],
    ] as const) {
      const operation = document.paths[path]?.post;
      expect(operation?.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
      expect(operation?.responses['409']?.description).toMatch(/idempotency_key_in_use/);
      expect(operation?.responses['422']?.description).toMatch(/idempotency_key_reused/);
      expect(operation?.responses[success]?.headers).toHaveProperty('Idempotent-Replayed');
    }
    expect(document.paths['/v3/contacts']?.post?.parameters ?? []).not.toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key' }),
    );
  });
});
