import { findPersonalAccessTokenById, listPersonalAccessTokensPage, type PersonalAccessTokenRow } from '@contacts/db';
import { activeMemberId, filterMemberId } from '../admin/named-member';
import { UsageError } from '../cli-context';
import { rowIdFlag } from '../flags';
import { afterId, pageLimit, pageOptions, toPage } from '../paging';
import { withAuthServer } from './auth-server';
import type { Command } from './index';

/** A personal access token as an administrator sees it: never its hash or grant. */
function shown({ token_hash: _hash, grant_id: _grant, ...token }: PersonalAccessTokenRow) {
  return token;
}

export const tokenCommands: Record<string, Command> = {
  create: {
    summary: 'token create --member M --name N [--days D] [--scope S …]',
    description:
      'Creates a personal access token for member M (printed once), in their security log. D at most 60, default 60; ' +
      'S defaults to *; give several as --scope contacts:read --scope contacts:write (or space-separated in one).',
    options: {
      member: { type: 'string' },
      name: { type: 'string' },
      days: { type: 'string' },
      scope: { type: 'string', multiple: true },
    },
    required: ['member', 'name'],
    run: async (values, context) => {
      const memberId = await activeMemberId(context.db, values, 'member');
      return withAuthServer(context, async (auth) => {
        const created = await auth.personalTokens.create(memberId, {
          name: values.name,
          scopes: Array.isArray(values.scope) ? values.scope.join(' ') : '*',
          days: values.days,
        });
        // In the member's security log, as a token created on their settings page is.
        await context.audit('personal_token.created', {
          memberId,
          details: { token_id: created.id, expires_at: created.expires_at, via: 'cli' },
        });
        return { id: created.id, token: created.token, expires_at: created.expires_at };
      });
    },
  },
  list: {
    summary: 'token list [--member M] [--limit N] [--after ID]',
    description: 'Lists personal access tokens by id (of one member with --member), revoked and expired ones included.',
    options: { member: { type: 'string' }, ...pageOptions },
    required: [],
    run: async (values, { db }) => {
      const limit = pageLimit(values);
      const memberId = await filterMemberId(db, values, 'member');
      const rows = await listPersonalAccessTokensPage(db, { limit, after: afterId(values), memberId });
      const page = toPage(rows, limit, (row) => row.id, { words: 'token list', filters: { member: memberId } });
      return { ...page, items: page.items.map(shown) };
    },
  },
  revoke: {
    summary: 'token revoke --id T',
    description:
      'Revokes personal access token T as its member would in the settings: the contacts API refuses it on the ' +
      'next request, and the member sees it in their security log.',
    options: { id: { type: 'string' } },
    required: ['id'],
    run: async (values, context) => {
      const id = rowIdFlag(values, 'id');
      const token = await findPersonalAccessTokenById(context.db, id);
      if (!token) throw new UsageError(`no personal access token has id ${id}`);
      if (token.revoked_at) return { id, revoked: true, already_revoked: true };
      await withAuthServer(context, (auth) => auth.personalTokens.revoke(token.member_id, id));
      await context.audit('personal_token.revoked', {
        memberId: token.member_id,
        details: { token_id: id, via: 'cli' },
      });
      return { id, revoked: true, already_revoked: false };
    },
  },
};
