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
  options: { owner?: TestMember; name?: string; redirectUri?: string; public?: boolean } = {},
): Promise<TestApplication> {
  const owner = options.owner ?? (await aMember(db, { name: 'App Developer' }));
  const redirectUri = options.redirectUri ?? 'http://localhost:4999/callback';
  const client = await registerClient(db, {
    ownerId: owner.id,
    name: options.name ?? 'Test application',
    redirectUris: [redirectUri],
    isPublic: options.public ?? false,
  });
  return { client_id: client.client_id, client_secret: client.client_secret, redirect_uri: redirectUri, owner };
}

/** An access token for a client, minted the way the token endpoint does, under a real grant. */
export async function anAccessToken(
  provider: Provider,
  { memberId, clientId, scope = '*' }: { memberId: number; clientId: string; scope?: string },
): Promise<string> {
  const grant = new provider.Grant({ accountId: String(memberId), clientId });
  grant.addResourceScope(CONTACTS_API_RESOURCE, scope);
  const grantId = await grant.save();
  const client = await provider.Client.find(clientId);
  if (!client) throw new Error(`no client ${clientId}`);
  const token = new provider.AccessToken({
    accountId: String(memberId),
    client,
    grantId,
    scope,
    gty: 'authorization_code',
  });
  return token.save();
}
