import { registerMember } from '@contacts/auth';
import type { Command } from './index';

export const memberCommands: Record<string, Command> = {
  create: {
    summary: 'member create --email E --name N --password P',
    options: { email: { type: 'string' }, name: { type: 'string' }, password: { type: 'string' } },
    required: ['email', 'name', 'password'],
    run: (values, { db }) => registerMember(db, { email: values.email, name: values.name, password: values.password }),
  },
};
