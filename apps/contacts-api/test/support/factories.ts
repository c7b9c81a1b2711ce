import {
  addGroupMember,
  type Database,
  insertBusinessCategory,
  insertContact,
  insertGroup,
  insertMember,
  type PublicMember,
} from '@contacts/db';
import type { Stack } from './servers';

/** Test data through the real query functions; every value unique unless given. */
let sequence = 0;
const next = () => {
  sequence += 1;
  return `${process.pid}-${sequence}`;
};

export async function aMember(db: Database): Promise<PublicMember> {
  const n = next();
  return insertMember(db, { email: `member-${n}@example.test`, name: `Member ${n}`, password_hash: 'not-a-hash' });
}

export async function aGroup(db: Database, members: PublicMember[] = []) {
  const group = await insertGroup(db, { name: `Group ${next()}` });
  for (const member of members) await addGroupMember(db, group.id, member.id);
  return group;
}

export async function aCategory(db: Database) {
  return insertBusinessCategory(db, { name: `Category ${next()}` });
}

export async function aContact(
  db: Database,
  owner: PublicMember,
  columns: Partial<Parameters<typeof insertContact>[2]> = {},
): Promise<number> {
  return insertContact(db, owner.id, { name: `Contact ${next()}`, ...columns });
}

/**
 * `count` contacts of `owner` in one statement (a listing's pages need more than a test can
 * insert one by one), named "<prefix> 1" … in id order; their ids, ascending.
 */
export async function manyContacts(
  db: Database,
  owner: PublicMember,
  count: number,
  options: { prefix?: string; groupId?: number } = {},
): Promise<number[]> {
  const { rows } = await db.raw<{ rows: Array<{ id: number }> }>(
    `insert into contacts (owner_id, name, group_id)
     select ?, ? || ' ' || n, ? from generate_series(1, ?) as n order by n returning id`,
    [owner.id, options.prefix ?? `Bulk ${next()}`, options.groupId ?? null, count],
  );
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

/** A member with a personal access token from the real auth server, and a fetch that sends it. */
export interface Client {
  member: PublicMember;
  token: string;
  tokenId: number;
  request(path: string, init?: RequestInit): Promise<Response>;
  json<T = unknown>(
    path: string,
    init?: RequestInit & { json?: unknown },
  ): Promise<{ status: number; body: T; response: Response }>;
}

export async function aClient(
  stack: Stack,
  options: { member?: PublicMember; scopes?: string[] } = {},
): Promise<Client> {
  const member = options.member ?? (await aMember(stack.db));
  const created = await stack.auth.personalTokens.create(member.id, {
    name: `test ${next()}`,
    scopes: options.scopes ?? ['contacts:read', 'contacts:write'],
  });
  const request = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${created.token}`);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  return {
    member,
    token: created.token,
    tokenId: created.id,
    request,
    async json<T>(path: string, init: RequestInit & { json?: unknown } = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set('content-type', 'application/json');
      const response = await request(path, {
        ...rest,
        headers,
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, response };
    },
  };
}

/** Smallest real images: magic bytes plus a little, enough for content sniffing. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** A 1×1 JPEG (baseline, as ImageMagick writes one). */
export const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAX/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABQb/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCKALXj/9k=',
  'base64',
);

export function multipart(fields: Record<string, string>, image?: { bytes: Buffer; filename: string; type: string }) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  if (image) form.set('image', new Blob([new Uint8Array(image.bytes)], { type: image.type }), image.filename);
  return form;
}
