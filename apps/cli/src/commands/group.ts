import { addMemberToGroup, createGroup } from '@contacts/auth';
import type { Command } from './index';

export const groupCommands: Record<string, Command> = {
  create: {
    summary: 'group create --name N',
    options: { name: { type: 'string' } },
    required: ['name'],
    run: (values, { db }) => createGroup(db, { name: values.name }),
  },
  'add-member': {
    summary: 'group add-member --group G --member M',
    options: { group: { type: 'string' }, member: { type: 'string' } },
    required: ['group', 'member'],
    run: (values, { db }) => addMemberToGroup(db, { group: values.group, member: values.member }),
  },
};
