import { randomBytes } from 'node:crypto';
import { createBusinessCategory, createGroup, registerClient, registerMember } from '@contacts/auth';
import type { Database } from '@contacts/db';

let sequence = 0;
const unique = () => `${++sequence}-${randomBytes(3).toString('hex')}`;

export async function aMember(db: Database, overrides: { password?: string } = {}) {
  const suffix = unique();
  const password = overrides.password ?? `password-${suffix}`;
  const member = await registerMember(db, { email: `m${suffix}@example.test`, name: `Member ${suffix}`, password });
  return { ...member, password };
}

export async function aClient(db: Database, ownerId: number, options: { public?: boolean } = {}) {
  return registerClient(db, {
    ownerId,
    name: `App ${unique()}`,
    redirectUris: ['http://localhost:4999/callback'],
    isPublic: options.public ?? false,
  });
}

export const aGroup = (db: Database) => createGroup(db, { name: `Group ${unique()}` });
export const aCategory = (db: Database) => createBusinessCategory(db, { name: `Category ${unique()}` });
