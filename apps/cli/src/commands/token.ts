import { findMemberById, isRowId } from '@contacts/db';
import { UsageError } from '../cli-context';
import { withAuthServer } from './auth-server';
import type { Command } from './index';

export const tokenCommands: Record<string, Command> = {
  create: {
    summary: 'token create --member M --name N [--days D] [--scope S]',
    options: {
      member: { type: 'string' },
      name: { type: 'string' },
      days: { type: 'string' },
      scope: { type: 'string' },
    },
    required: ['member', 'name'],
    run: async (values, context) => {
      const memberId = Number(values.member);
      if (!isRowId(memberId) || !(await findMemberById(context.db, memberId))) {
        throw new UsageError(`no member has id ${String(values.member)}`);
      }
      return withAuthServer(context, async (auth) => {
        const created = await auth.personalTokens.create(memberId, {
          name: values.name,
          scopes: values.scope ?? '*',
          days: values.days,
        });
        return { id: created.id, token: created.token, expires_at: created.expires_at };
      });
    },
  },
};
