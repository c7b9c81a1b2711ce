import { listAuthorizedApplications, registerMember, resetPassword, unlockSignIn } from '@contacts/auth';
import { listGroupsOfMember, listMembersPage, listOAuthClientsOf, listPersonalAccessTokensOf } from '@contacts/db';
import { disableMember, enableMember } from '../admin/member-access';
import { namedMember } from '../admin/named-member';
import { UsageError } from '../cli-context';
import { PASSWORD_FLAGS, passwordFlag, passwordOptions } from '../flags';
import { afterId, pageLimit, pageOptions, toPage } from '../paging';
import type { Command } from './index';

const PASSWORD_HELP =
  '--password-stdin reads the password from the first line of standard input, where other users of the ' +
  'machine cannot see it (they can see --password in the process list while the command runs).';

export const memberCommands: Record<string, Command> = {
  create: {
    summary: 'member create --email E --name N (--password P | --password-stdin)',
    description: `Registers a member who can sign in with this e-mail address and password. ${PASSWORD_HELP}`,
    options: { email: { type: 'string' }, name: { type: 'string' }, ...passwordOptions },
    required: ['email', 'name'],
    oneOf: [PASSWORD_FLAGS],
    run: async (values, { db }) =>
      registerMember(db, { email: values.email, name: values.name, password: await passwordFlag(values) }),
  },
  list: {
    summary: 'member list [--limit N] [--after ID]',
    description: 'Lists members by id, disabled ones included (disabled_at set), one page at a time.',
    options: { ...pageOptions },
    required: [],
    run: async (values, { db }) => {
      const limit = pageLimit(values);
      const rows = await listMembersPage(db, { limit, after: afterId(values) });
      return { ...toPage(rows, limit, (row) => row.id, { words: 'member list' }) };
    },
  },
  show: {
    summary: 'member show --member M',
    description: 'Shows a member with their groups, applications, personal access tokens and authorized applications.',
    options: { member: { type: 'string' } },
    required: ['member'],
    run: async (values, context) => {
      const member = await namedMember(context.db, values, 'member');
      const { db } = context;
      const [groups, clients, tokens, grants] = await Promise.all([
        listGroupsOfMember(db, member.id),
        listOAuthClientsOf(db, member.id),
        listPersonalAccessTokensOf(db, member.id),
        // The settings page's list, the API documentation's built-in client included.
        listAuthorizedApplications(db, member.id),
      ]);
      return {
        ...member,
        groups,
        clients: clients.map(({ secret_hash: _secret, ...client }) => client),
        personal_tokens: tokens.map(({ token_hash: _hash, grant_id: _grant, ...token }) => token),
        authorized_apps: grants,
      };
    },
  },
  'set-password': {
    summary: 'member set-password --member M (--password P | --password-stdin) [--revoke-tokens]',
    description:
      "Gives a member a new password (the pages' rule: at least 12 characters, not a common password), lifts a " +
      'sign-in lock on their account, and signs every browser session of theirs out, as a password change on ' +
      'their own page signs out the others. With ' +
      '--revoke-tokens, every consent, code and token issued for them (personal access tokens included) is ' +
      `revoked too, the contacts API told; without it, applications they authorized keep working. ${PASSWORD_HELP}`,
    options: { member: { type: 'string' }, ...passwordOptions, 'revoke-tokens': { type: 'boolean' } },
    required: ['member'],
    oneOf: [PASSWORD_FLAGS],
    run: async (values, context) => {
      const member = await namedMember(context.db, values, 'member');
      const revokeTokens = values['revoke-tokens'] === true;
      const reset = await resetPassword(context.db, {
        memberId: member.id,
        newPassword: await passwordFlag(values),
        revokeTokens,
      });
      if (!reset) throw new UsageError(`no member has id ${member.id}`);
      await context.audit('password.changed', {
        memberId: member.id,
        details: { by: 'administrator', sessions_signed_out: reset.sessionsEnded, tokens_revoked: revokeTokens },
      });
      return {
        id: member.id,
        password_changed: true,
        ended_sessions: reset.sessionsEnded,
        tokens_revoked: revokeTokens,
      };
    },
  },
  unlock: {
    summary: 'member unlock --member M',
    description:
      "Lifts the sign-in lock on a member's account (5 wrong passwords lock it for 15 minutes), e.g. when someone " +
      'guessing at their address locked them out. Their password stays as it is; `member set-password` lifts the ' +
      'lock too.',
    options: { member: { type: 'string' } },
    required: ['member'],
    run: async (values, context) => {
      const member = await namedMember(context.db, values, 'member');
      await unlockSignIn(context.db, member.id);
      return { id: member.id, unlocked: true };
    },
  },
  disable: {
    summary: 'member disable --member M',
    description:
      'Disables a member: they cannot sign in, and every consent, code and token issued for them (personal ' +
      'access tokens included) is revoked at once, the contacts API told, and every browser session of theirs is ' +
      'signed out. `member enable` undoes the sign-in block only.',
    options: { member: { type: 'string' } },
    required: ['member'],
    run: async (values, context) => {
      const member = await namedMember(context.db, values, 'member');
      const disabled = await disableMember(context.db, member.id);
      if (!disabled) throw new UsageError(`no member has id ${member.id}`);
      await context.audit('account.disabled', { memberId: member.id, details: { by: 'administrator' } });
      return {
        ...disabled.member,
        revoked_grants: disabled.revoked_grants,
        revoked_personal_tokens: disabled.revoked_personal_tokens,
        ended_sessions: disabled.ended_sessions,
      };
    },
  },
  enable: {
    summary: 'member enable --member M',
    description: 'Lets a disabled member sign in again. Revoked tokens and consents stay revoked.',
    options: { member: { type: 'string' } },
    required: ['member'],
    run: async (values, context) => {
      const member = await namedMember(context.db, values, 'member');
      const enabled = await enableMember(context.db, member.id);
      await context.audit('account.enabled', { memberId: member.id, details: { by: 'administrator' } });
      return { ...enabled };
    },
  },
};
