import {
  addGroupMember,
  type Database,
  findGroupById,
  findMemberByEmail,
  findMemberById,
  insertBusinessCategory,
  insertGroup,
  insertMember,
  type PublicMember,
} from '@contacts/db';
import { decoyHash, hashSecret, verifySecret } from './passwords';
import { InputError, requireEmail, requirePassword, requirePositiveInteger, requireText } from './validation';

export async function registerMember(
  db: Database,
  input: { email: unknown; name: unknown; password: unknown },
): Promise<PublicMember> {
  const email = requireEmail(input.email);
  const name = requireText(input.name, 'name', 'Name');
  const password = requirePassword(input.password);
  if (await findMemberByEmail(db, email))
    throw new InputError('A member with this e-mail address already exists.', 'email');
  try {
    return await insertMember(db, { email, name, password_hash: await hashSecret(password) });
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw new InputError('A member with this e-mail address already exists.', 'email');
    throw error;
  }
}

/** The member whose e-mail and password these are; the same (undefined) for an unknown e-mail and a wrong password. */
export async function authenticateMember(
  db: Database,
  email: string,
  password: string,
): Promise<PublicMember | undefined> {
  const member = await findMemberByEmail(db, email.trim());
  const valid = await verifySecret(member?.password_hash ?? (await decoyHash()), password);
  return member && valid ? { id: member.id, email: member.email, name: member.name } : undefined;
}

export async function createGroup(db: Database, input: { name: unknown }) {
  return insertGroup(db, { name: requireText(input.name, 'name', 'Name') });
}

export async function addMemberToGroup(db: Database, input: { group: unknown; member: unknown }) {
  const groupId = requirePositiveInteger(input.group, 'group', 'Group');
  const memberId = requirePositiveInteger(input.member, 'member', 'Member');
  if (!(await findGroupById(db, groupId))) throw new InputError(`No group has id ${groupId}.`, 'group');
  if (!(await findMemberById(db, memberId))) throw new InputError(`No member has id ${memberId}.`, 'member');
  await addGroupMember(db, groupId, memberId);
  return { group_id: groupId, member_id: memberId };
}

export async function createBusinessCategory(db: Database, input: { name: unknown }) {
  const name = requireText(input.name, 'name', 'Name');
  try {
    return await insertBusinessCategory(db, { name });
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw new InputError(`A category named "${name}" already exists.`, 'name');
    throw error;
  }
}
