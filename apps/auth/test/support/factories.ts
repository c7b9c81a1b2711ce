import { randomBytes } from 'node:crypto';
import type { Database } from '@contacts/db';
import type Provider from 'oidc-provider';
import { registerClient, registerMember } from '../../src/index';
import { CONTACTS_API_RESOURCE } from '../../src/provider/scopes';

let sequence = 0;

export interface TestMember {
  id: number;
  email: string;
  name: string;
  password: string;
}

export async function aMember(db: Database, overrides: Partial<Omit<TestMember, 'id'>> = {}): Promise<TestMember> {
  sequence += 1;
  const input = {
    email: overrides.email ?? `member${sequence}-${randomBytes(3).toString('hex')}@example.test`,
    name: overrides.name ?? `Member ${sequence}`,
    password: overrides.password ?? `password-${randomBytes(6).toString('hex')}`,
  };
  const member = await registerMember(db, input);
  return { ...member, password: input.password };
}

export interface TestApplication {
  client_id: string;
  client_secret?: string;
  redirect_uri: string;
  owner: TestMember;
}

export async function anApplication(
  db: Database,
  options: { owner?: TestMember; name?: string; redirectUri?: string; public?: boolean; dpop?: boolean } = {},
): Promise<TestApplication> {
  const owner = options.owner ?? (await aMember(db, { name: 'App Developer' }));
  const redirectUri = options.redirectUri ?? 'http://localhost:4999/callback';
  const client = await registerClient(db, {
    ownerId: owner.id,
    name: options.name ?? 'Test application',
    redirectUris: [redirectUri],
    isPublic: options.public ?? false,
    dpopBound: options.dpop ?? false,
  });
  return { client_id: client.client_id, client_secret: client.client_secret, redirect_uri: redirectUri, owner };
}

interface TokenOwner {
  memberId: number;
  clientId: string;
  /** The scope granted and given to the token; `*` unless said. */
  scope?: string;
}

/** A member's consent to a client, for the contacts API, as the consent page saves it. */
async function aGrant(provider: Provider, { memberId, clientId, scope }: Required<TokenOwner>) {
  const grant = new provider.Grant({ accountId: String(memberId), clientId });
  grant.addResourceScope(CONTACTS_API_RESOURCE, scope);
  const grantId = await grant.save();
  const client = await provider.Client.find(clientId);
  if (!client) throw new Error(`no client ${clientId}`);
  return { grantId, client };
}

/** An access token for a client, minted the way the token endpoint does, under a real grant. */
export async function anAccessToken(
  provider: Provider,
  { memberId, clientId, scope = '*' }: TokenOwner,
): Promise<string> {
  const { grantId, client } = await aGrant(provider, { memberId, clientId, scope });
  const token = new provider.AccessToken({
    accountId: String(memberId),
    client,
    grantId,
    scope,
    gty: 'authorization_code',
  });
  return token.save();
}

/**
 * A refresh token for a client, as the code exchange issues it (for the contacts API, under a
 * real grant), for tests about refreshing that need no browser to get one.
 */
export async function aRefreshToken(
  provider: Provider,
  { memberId, clientId, scope = '*' }: TokenOwner,
): Promise<string> {
  const { grantId, client } = await aGrant(provider, { memberId, clientId, scope });
  const token = new provider.RefreshToken({
    accountId: String(memberId),
    client,
    grantId,
    scope,
    resource: CONTACTS_API_RESOURCE,
    gty: 'authorization_code',
  });
  return token.save();
}

/** An authorization code for a client, as the authorization endpoint issues it after consent. */
export async function anAuthorizationCode(
  provider: Provider,
  { memberId, clientId, redirectUri, scope = '*' }: TokenOwner & { redirectUri: string },
): Promise<string> {
  const { grantId, client } = await aGrant(provider, { memberId, clientId, scope });
  const code = new provider.AuthorizationCode({
    accountId: String(memberId),
    client,
    grantId,
    redirectUri,
    scope,
    resource: CONTACTS_API_RESOURCE,
    gty: 'authorization_code', // unused for a code, but its type definitions require it
  });
  return code.save();
}
