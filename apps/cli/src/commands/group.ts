import { addMemberToGroup, createGroup } from '@contacts/auth';
import { type Database, findGroupById, listGroupsPage, removeGroupMember } from '@contacts/db';
import { activeMemberId, namedMember } from '../admin/named-member';
import { UsageError } from '../cli-context';
import { rowIdFlag } from '../flags';
import { afterId, pageLimit, pageOptions, toPage } from '../paging';
import type { Command, CommandValues } from './index';

export const groupCommands: Record<string, Command> = {
  create: {
    summary: 'group create --name N',
    description: 'Creates a group of members (who can see each other in the contacts API).',
    options: { name: { type: 'string' } },
    required: ['name'],
    run: (values, { db }) => createGroup(db, { name: values.name }),
  },
  list: {
    summary: 'group list [--limit N] [--after ID]',
    description: 'Lists groups by id with their member counts, one page at a time.',
    options: { ...pageOptions },
    required: [],
    run: async (values, { db }) => {
      const limit = pageLimit(values);
      const rows = await listGroupsPage(db, { limit, after: afterId(values) });
      return { ...toPage(rows, limit, (row) => row.id, { words: 'group list' }) };
    },
  },
  'add-member': {
    summary: 'group add-member --group G --member M',
    description: 'Adds member M to group G (adding twice is not an error).',
    options: { group: { type: 'string' }, member: { type: 'string' } },
    required: ['group', 'member'],
    run: async (values, { db }) => {
      const groupId = await namedGroupId(db, values);
      return addMemberToGroup(db, { group: groupId, member: await activeMemberId(db, values, 'member') });
    },
  },
  'remove-member': {
    summary: 'group remove-member --group G --member M',
    description: 'Removes member M from group G.',
    options: { group: { type: 'string' }, member: { type: 'string' } },
    required: ['group', 'member'],
    run: async (values, { db }) => {
      const groupId = await namedGroupId(db, values);
      const memberId = (await namedMember(db, values, 'member')).id;
      if (!(await removeGroupMember(db, groupId, memberId))) {
        throw new UsageError(`member ${memberId} is not in group ${groupId}`);
      }
      return { group_id: groupId, member_id: memberId, removed: true };
    },
  },
};

/** The id of the group `--group` names; a usage error when there is none. */
async function namedGroupId(db: Database, values: CommandValues): Promise<number> {
  const groupId = rowIdFlag(values, 'group');
  if (!(await findGroupById(db, groupId))) throw new UsageError(`no group has id ${groupId}`);
  return groupId;
}
