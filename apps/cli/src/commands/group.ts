import { addMemberToGroup, createGroup } from '@contacts/auth';
import { findGroupById, listGroupsPage, removeGroupMember } from '@contacts/db';
import { UsageError } from '../cli-context';
import { rowIdFlag } from '../flags';
import { afterId, pageLimit, pageOptions, toPage } from '../paging';
import type { Command } from './index';

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
    run: (values, { db }) => addMemberToGroup(db, { group: values.group, member: values.member }),
  },
  'remove-member': {
    summary: 'group remove-member --group G --member M',
    description: 'Removes member M from group G.',
    options: { group: { type: 'string' }, member: { type: 'string' } },
    required: ['group', 'member'],
    run: async (values, { db }) => {
      const groupId = rowIdFlag(values, 'group');
      const memberId = rowIdFlag(values, 'member');
      if (!(await findGroupById(db, groupId))) throw new UsageError(`no group has id ${groupId}`);
      if (!(await removeGroupMember(db, groupId, memberId))) {
        throw new UsageError(`member ${memberId} is not in group ${groupId}`);
      }
      return { group_id: groupId, member_id: memberId, removed: true };
    },
  },
};
