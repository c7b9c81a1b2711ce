import { readdir } from 'node:fs/promises';
import { IMAGE_CHUNK_BYTES } from '@contacts/db';
import { MAX_IMAGE_BYTES } from '@contacts/schemas';
import { describe, expect, it } from 'vitest';
import { uploadFolder } from '../src/http/upload-spool';
import { aClient, aGroup, type Client, JPEG, multipart, PNG } from './support/factories';
import { useStack } from './support/use-stack';

type One = { data: { id: number; image_url: string | null; name: string } };
type Failure = { error: { code: string; fields?: Record<string, string[]> } };

const world = useStack();

/** A PNG of exactly `size` bytes: a real PNG, then padding (the content check reads its header). */
const pngOfSize = (size: number) => Buffer.concat([PNG, Buffer.alloc(size - PNG.length, 1)]);

describe('contact images', () => {
  it('round-trips byte for byte, with its content type, ETag and Cache-Control', async () => {
    const created = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: multipart({ name: 'Pictured', city: 'Oslo' }, { bytes: PNG, filename: 'me.png', type: 'image/png' }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as One;
    expect(data.image_url).toBe(`${world.stack.apiUrl}/v4/contacts/${data.id}/image`);

    const image = await world.client.request(`/v4/contacts/${data.id}/image`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toContain('private');
    // Opened on its own in a browser, it runs nothing, whatever rides after the picture.
    expect(image.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = image.headers.get('etag')!;
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    expect(
      (await world.client.request(`/v4/contacts/${data.id}/image`, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);

    // Replaced on update: a JPEG declared as PNG is stored as what it is.
    const updated = await world.client.request(`/v4/contacts/${data.id}`, {
      method: 'POST',
      body: multipart({}, { bytes: JPEG, filename: 'x.png', type: 'image/png' }),
    });
    expect(updated.status).toBe(200);
    const replaced = await world.client.request(`/v4/contacts/${data.id}/image`);
    expect(replaced.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await replaced.arrayBuffer()).equals(JPEG)).toBe(true);
    expect(((await (await world.client.request(`/v4/contacts/${data.id}`)).json()) as One).data.name).toBe('Pictured');

    // Removed with the contact.
    await world.client.json('/v4/contacts', { method: 'DELETE', json: { contact_ids: [data.id] } });
    expect(await world.stack.db('contact_images').where({ contact_id: data.id })).toHaveLength(0);
  });

  it('answers a revalidation 304, a changed one and a HEAD in full, small and large images alike', async () => {
    for (const bytes of [PNG, pngOfSize(IMAGE_CHUNK_BYTES * 2 + 5)]) {
      const created = await world.client.request('/v4/contacts', {
        method: 'POST',
        body: multipart({ name: 'Revalidated' }, { bytes, filename: 'me.png', type: 'image/png' }),
      });
      const { data } = (await created.json()) as One;
      const path = `/v4/contacts/${data.id}/image`;
      const etag = (await world.client.request(path, { method: 'HEAD' })).headers.get('etag') as string;
      const head = await world.client.request(path, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(bytes.length));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      expect((await world.client.request(path, { headers: { 'if-none-match': etag } })).status).toBe(304);
      const changed = await world.client.request(path, { headers: { 'if-none-match': '"an-older-image"' } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).toBe(etag);
      expect(Buffer.from(await changed.arrayBuffer()).equals(bytes)).toBe(true);
      // If-Match as on a contact: strong, * for any image; a stale one is 412 (RFC 9110 §13.1.1).
      const stale = await world.client.json<Failure>(path, { headers: { 'if-match': '"an-older-image"' } });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('precondition_failed');
      expect((await world.client.request(path, { headers: { 'if-match': `W/${etag}` } })).status).toBe(412);
      for (const current of [etag, '*']) {
        const matched = await world.client.request(path, { headers: { 'if-match': current } });
        expect(matched.status).toBe(200);
        expect(Buffer.from(await matched.arrayBuffer()).equals(bytes)).toBe(true);
      }
    }
  });

  it("answers 404 saying which: a contact without an image, no such contact (another member's)", async () => {
    const { body } = await world.client.json<One>('/v4/contacts', { method: 'POST', json: { name: 'Plain' } });
    const plain = await world.client.json<{ error: { message: string } }>(`/v4/contacts/${body.data.id}/image`);
    expect(plain.status).toBe(404);
    expect(plain.body.error.message).toBe('This contact has no image.');
    const missing = await world.client.json<{ error: { message: string } }>('/v4/contacts/2000000000/image');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('No such contact.');
    const withImage = (await (
      await world.client.request('/v4/contacts', {
        method: 'POST',
        body: multipart({ name: 'P' }, { bytes: PNG, filename: 'p.png', type: 'image/png' }),
      })
    ).json()) as One;
    const stranger = await aClient(world.stack);
    const theirs = await stranger.json<{ error: { message: string } }>(`/v4/contacts/${withImage.data.id}/image`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.message).toBe('No such contact.');
  });

  it("serves a group guest's image to the group's members through the group, and to nobody else", async () => {
    const owner = await aClient(world.stack);
    const fellow = await aClient(world.stack);
    const outsider = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [owner.member, fellow.member]);
    const created = await owner.request('/v4/contacts', {
      method: 'POST',
      body: multipart(
        { name: 'Guest', group_id: String(group.id) },
        { bytes: PNG, filename: 'g.png', type: 'image/png' },
      ),
    });
    expect(created.status).toBe(201);
    const guestId = ((await created.json()) as One).data.id;

    // The listing points each guest's image_url where a member of the group can read it.
    const guests = await fellow.json<{ data: One['data'][] }>(`/v4/groups/${group.id}/guests`);
    const imageUrl = guests.body.data.find((contact) => contact.id === guestId)?.image_url;
    expect(imageUrl).toBe(`${world.stack.apiUrl}/v4/groups/${group.id}/guests/${guestId}/image`);
    const image = await fellow.request(new URL(imageUrl!).pathname);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    const etag = image.headers.get('etag')!;
    expect((await fellow.request(new URL(imageUrl!).pathname, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );

    // Not through the owner's route, not for outsiders, not through another group.
    expect((await fellow.request(`/v4/contacts/${guestId}/image`)).status).toBe(404);
    expect((await outsider.request(`/v4/groups/${group.id}/guests/${guestId}/image`)).status).toBe(403);
    const otherGroup = await aGroup(world.stack.db, [fellow.member]);
    const elsewhere = await fellow.json<{ error: { message: string } }>(
      `/v4/groups/${otherGroup.id}/guests/${guestId}/image`,
    );
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.message).toBe('No such guest of this group.');
    expect((await fellow.request(`/v4/groups/${group.id}/guests/abc/image`)).status).toBe(404);
  });

  it('refuses a text file posing as a PNG with 422, and stores nothing', async () => {
    const before = await world.stack.db('contacts').count<{ count: number }[]>('* as count');
    const response = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: multipart(
        { name: 'Fake' },
        { bytes: Buffer.from('just some text, not an image'), filename: 'fake.png', type: 'image/png' },
      ),
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as Failure).error.fields?.image).toEqual(['The image must be a JPEG or PNG file.']);
    expect(await world.stack.db('contacts').count('* as count')).toEqual(before);
  });

  it.each([
    ['a JPEG cut off after its signature', JPEG.subarray(0, 6), 'cut.jpg', 'image/jpeg'],
    ['a PNG cut off inside its header', PNG.subarray(0, 20), 'cut.png', 'image/png'],
  ])('refuses %s with 422 (no size to read), and stores nothing', async (_label, bytes, filename, type) => {
    const before = await world.stack.db('contacts').count<{ count: number }[]>('* as count');
    const response = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: multipart({ name: 'Broken picture' }, { bytes: Buffer.from(bytes), filename, type }),
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as Failure).error.fields?.image).toEqual(['The image must be a JPEG or PNG file.']);
    expect(await world.stack.db('contacts').count('* as count')).toEqual(before);
  });

  it('accepts exactly 12 MB and refuses one byte more with 413, leaving nothing behind', async () => {
    const exact = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: multipart(
        { name: 'Exactly 12 MB' },
        { bytes: pngOfSize(MAX_IMAGE_BYTES), filename: 'big.png', type: 'image/png' },
      ),
    });
    expect(exact.status).toBe(201);
    const stored = await world.stack
      .db('contact_images')
      .where({ contact_id: ((await exact.json()) as One).data.id })
      .first('size');
    expect(stored!.size).toBe(MAX_IMAGE_BYTES);

    const over = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: multipart(
        { name: 'Too big' },
        { bytes: pngOfSize(MAX_IMAGE_BYTES + 1), filename: 'big.png', type: 'image/png' },
      ),
    });
    expect(over.status).toBe(413);
    expect(((await over.json()) as Failure).error.code).toBe('payload_too_large');
    expect(await world.stack.db('contacts').where({ name: 'Too big' })).toHaveLength(0);
  });

  it('sends an image of several chunks whole, with its Content-Length', async () => {
    // Not a multiple of the chunk size: the last chunk is a short one.
    const bytes = pngOfSize(2 * IMAGE_CHUNK_BYTES + 12_345);
    const created = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: multipart({ name: 'Large picture' }, { bytes, filename: 'l.png', type: 'image/png' }),
    });
    const { data } = (await created.json()) as One;
    const image = await world.client.request(`/v4/contacts/${data.id}/image`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await image.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('keeps no uploaded file on disk once its request is answered, stored or refused', async () => {
    const folder = await uploadFolder();
    const answers = await Promise.all([
      world.client.request('/v4/contacts', {
        method: 'POST',
        body: multipart({ name: 'Kept' }, { bytes: PNG, filename: 'k.png', type: 'image/png' }),
      }),
      world.client.request('/v4/contacts', {
        method: 'POST',
        body: multipart({ name: 'Not an image' }, { bytes: Buffer.from('text'), filename: 't.png', type: 'image/png' }),
      }),
      world.client.request('/v4/contacts', {
        method: 'POST',
        body: multipart({}, { bytes: PNG, filename: 'nameless.png', type: 'image/png' }),
      }),
      world.client.request('/v4/contacts', {
        method: 'POST',
        body: multipart(
          { name: 'Too big' },
          { bytes: pngOfSize(MAX_IMAGE_BYTES + 1), filename: 'b.png', type: 'image/png' },
        ),
      }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 422, 422, 413]);
    await expect.poll(() => readdir(folder), { timeout: 5_000 }).toEqual([]);
  });

  it('refuses a malformed multipart body with 400', async () => {
    const response = await world.client.request('/v4/contacts', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nTruncated',
    });
    expect(response.status).toBe(400);
    const noBoundary = await world.client.request('/v4/contacts', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data' },
      body: 'whatever',
    });
    expect(noBoundary.status).toBe(400);
  });
});

describe('DELETE /v4/contacts/{id}/image', () => {
  type Contact = { data: { id: number; image_url: string | null; updated_at: string } };
  type Refusal = { error: { code: string; message: string } };

  const withImage = async (owner: Client = world.client) => {
    const created = await owner.request('/v4/contacts', {
      method: 'POST',
      body: multipart({ name: 'To be unpictured' }, { bytes: PNG, filename: 'p.png', type: 'image/png' }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as One).data.id;
  };
  const read = async (owner: Client, id: number) => {
    const response = await owner.request(`/v4/contacts/${id}`);
    expect(response.status).toBe(200);
    return { etag: response.headers.get('etag')!, contact: ((await response.json()) as Contact).data };
  };
  const storedImages = async (id: number) => (await world.stack.db('contact_images').where({ contact_id: id })).length;

  it('removes the image (204): the image is gone, image_url null, a new ETag and updated_at; a second DELETE → 404', async () => {
    const id = await withImage();
    const before = await read(world.client, id);
    expect(before.contact.image_url).not.toBeNull();

    const removed = await world.client.request(`/v4/contacts/${id}/image`, {
      method: 'DELETE',
      headers: { 'if-match': before.etag },
    });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');

    expect((await world.client.request(`/v4/contacts/${id}/image`)).status).toBe(404);
    expect(await storedImages(id)).toBe(0);
    const after = await read(world.client, id);
    expect(after.contact.image_url).toBeNull();
    expect(after.etag).not.toBe(before.etag);
    expect(Date.parse(after.contact.updated_at)).toBeGreaterThan(Date.parse(before.contact.updated_at));

    const again = await world.client.json<Refusal>(`/v4/contacts/${id}/image`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual({ code: 'not_found', message: 'This contact has no image.' });
    // The refused second removal wrote nothing.
    expect((await read(world.client, id)).etag).toBe(after.etag);
  });

  it('answers 404 saying which: no such contact of the caller, or no image', async () => {
    const { body } = await world.client.json<One>('/v4/contacts', { method: 'POST', json: { name: 'Never pictured' } });
    const noImage = await world.client.json<Refusal>(`/v4/contacts/${body.data.id}/image`, { method: 'DELETE' });
    expect(noImage.status).toBe(404);
    expect(noImage.body.error).toEqual({ code: 'not_found', message: 'This contact has no image.' });

    for (const path of ['/v4/contacts/2147483647/image', '/v4/contacts/abc/image', '/v4/contacts/0/image']) {
      const unknown = await world.client.json<Refusal>(path, { method: 'DELETE' });
      expect(unknown.status, path).toBe(404);
      expect(unknown.body.error.code, path).toBe('not_found');
    }
    expect(
      (await world.client.json<Refusal>('/v4/contacts/2147483647/image', { method: 'DELETE' })).body.error.message,
    ).toBe('No such contact.');
  });

  it("refuses another member's contact with 404 and removes nothing", async () => {
    const owner = await aClient(world.stack);
    const id = await withImage(owner);
    const before = await read(owner, id);
    const stranger = await aClient(world.stack);
    const refused = await stranger.json<Refusal>(`/v4/contacts/${id}/image`, { method: 'DELETE' });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toEqual({ code: 'not_found', message: 'No such contact.' });
    expect(await storedImages(id)).toBe(1);
    expect((await read(owner, id)).etag).toBe(before.etag);
  });

  it('answers 412 to a stale If-Match (the contact changed since) and removes nothing; * and the current ETag work', async () => {
    const id = await withImage();
    const stale = (await read(world.client, id)).etag;
    expect((await world.client.json(`/v4/contacts/${id}`, { method: 'POST', json: { city: 'Bergen' } })).status).toBe(
      200,
    );
    const current = await read(world.client, id);

    for (const ifMatch of [stale, `W/${current.etag}`, '"nothing-like-it"']) {
      const refused = await world.client.json<Refusal>(`/v4/contacts/${id}/image`, {
        method: 'DELETE',
        headers: { 'if-match': ifMatch },
      });
      expect(refused.status, ifMatch).toBe(412);
      expect(refused.body.error.code).toBe('precondition_failed');
    }
    expect(await storedImages(id)).toBe(1);
    expect(await read(world.client, id)).toEqual(current);

    const removed = await world.client.request(`/v4/contacts/${id}/image`, {
      method: 'DELETE',
      headers: { 'if-match': `${stale}, ${current.etag}` },
    });
    expect(removed.status).toBe(204);
    const starred = await withImage();
    expect(
      (await world.client.request(`/v4/contacts/${starred}/image`, { method: 'DELETE', headers: { 'if-match': '*' } }))
        .status,
    ).toBe(204);
  });

  it('needs contacts:write: a read-only token → 403 insufficient_scope, nothing removed', async () => {
    const id = await withImage();
    const reader = await aClient(world.stack, { member: world.client.member, scopes: ['contacts:read'] });
    const refused = await reader.json<Refusal>(`/v4/contacts/${id}/image`, { method: 'DELETE' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect(refused.response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="contacts", error="insufficient_scope", .*scope="contacts:write"/,
    );
    expect(await storedImages(id)).toBe(1);
  });
});
