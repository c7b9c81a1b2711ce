import { deleteClient, InputError, registerClient, rotateClientSecret, updateClient } from '@contacts/auth';
import { findOAuthClient, listOAuthClientsPage, type OAuthClientRow } from '@contacts/db';
import { activeMemberId, filterMemberId } from '../admin/named-member';
import { type CommandContext, UsageError } from '../cli-context';
import { textFlag } from '../flags';
import { afterText, pageLimit, pageOptions, toPage } from '../paging';
import type { Command, CommandValues } from './index';

/** A client as an administrator sees it: never the hash of its secret. */
function shown({ secret_hash: _secret, ...client }: OAuthClientRow) {
  return client;
}

async function existingClient(values: CommandValues, { db }: CommandContext): Promise<OAuthClientRow> {
  const clientId = textFlag(values, 'client');
  const client = await findOAuthClient(db, clientId);
  if (!client) throw new UsageError(`no client has id ${clientId}`);
  return client;
}

const cli = { via: 'cli' } as const;

export const clientCommands: Record<string, Command> = {
  create: {
    summary: 'client create --owner M --name N --redirect-uri U [--redirect-uri U2 …] [--public] [--dpop]',
    description:
      'Registers an OAuth application owned by member M. Prints its secret once (none with --public, for ' +
      'apps that cannot keep one and use PKCE). --dpop: the application must use DPoP-bound tokens.',
    options: {
      owner: { type: 'string' },
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      public: { type: 'boolean' },
      dpop: { type: 'boolean' },
    },
    required: ['owner', 'name', 'redirect-uri'],
    run: async (values, { db }) => {
      const client = await registerClient(db, {
        ownerId: await activeMemberId(db, values, 'owner'),
        name: values.name,
        redirectUris: values['redirect-uri'],
        isPublic: values.public === true,
        dpopBound: values.dpop === true,
      });
      return { ...client };
    },
  },
  list: {
    summary: 'client list [--owner M] [--limit N] [--after CLIENT_ID]',
    description: 'Lists OAuth applications by client id (of one owner with --owner), one page at a time.',
    options: { owner: { type: 'string' }, ...pageOptions },
    required: [],
    run: async (values, { db }) => {
      const limit = pageLimit(values);
      const ownerId = await filterMemberId(db, values, 'owner');
      const rows = await listOAuthClientsPage(db, { limit, after: afterText(values), ownerId });
      const page = toPage(rows, limit, (row) => row.client_id, { words: 'client list', filters: { owner: ownerId } });
      return { ...page, items: page.items.map(shown) };
    },
  },
  show: {
    summary: 'client show --client C',
    description: 'Shows one OAuth application.',
    options: { client: { type: 'string' } },
    required: ['client'],
    run: async (values, context) => shown(await existingClient(values, context)),
  },
  update: {
    summary: 'client update --client C [--name N] [--redirect-uri U …]',
    description:
      'Renames an OAuth application and/or replaces its redirect URIs (all of them: give every one to keep), ' +
      'as its owner editing it in the settings would. Its id, secret and tokens stay.',
    options: {
      client: { type: 'string' },
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
    },
    required: ['client'],
    run: async (values, context) => {
      const client = await existingClient(values, context);
      if (values.name === undefined && values['redirect-uri'] === undefined) {
        throw new UsageError('give --name, --redirect-uri or both');
      }
      await updateClient(context.db, client.owner_id, client.client_id, {
        name: values.name ?? client.name,
        redirectUris: values['redirect-uri'] ?? client.redirect_uris,
      });
      await context.audit('application.updated', {
        memberId: client.owner_id,
        clientId: client.client_id,
        details: cli,
      });
      return shown((await findOAuthClient(context.db, client.client_id)) ?? client);
    },
  },
  delete: {
    summary: 'client delete --client C',
    description:
      'Deletes an OAuth application and revokes every consent, code and token issued to it, as its owner ' +
      'deleting it in the settings would (the contacts API is told; the owner sees it in their security log).',
    options: { client: { type: 'string' } },
    required: ['client'],
    run: async (values, context) => {
      const client = await existingClient(values, context);
      await deleteClient(context.db, client.owner_id, client.client_id);
      await context.audit('application.deleted', {
        memberId: client.owner_id,
        clientId: client.client_id,
        details: { ...cli, client_name: client.name },
      });
      return { client_id: client.client_id, deleted: true };
    },
  },
  'rotate-secret': {
    summary: 'client rotate-secret --client C',
    description:
      'Gives a confidential application a new secret (printed once): the old one stops working and every ' +
      'token issued to the application is revoked, as in the settings.',
    options: { client: { type: 'string' } },
    required: ['client'],
    run: async (values, context) => {
      const client = await existingClient(values, context);
      const rotated = await rotateClientSecret(context.db, client.owner_id, client.client_id);
      if (!rotated) throw new InputError('The secret was rotated meanwhile; run the command again.', 'client');
      await context.audit('application.secret_rotated', {
        memberId: client.owner_id,
        clientId: client.client_id,
        details: cli,
      });
      return { ...rotated };
    },
  },
};
