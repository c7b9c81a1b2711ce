import { addGroupMember, type Database, findGroupById, findMemberById, insertGroup } from '@contacts/db';
import { InputError, requirePositiveInteger, requireText } from './validation';

/** Groups of members (who share contacts), created and filled by an operator from the CLI. */
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
