import {
  countPersonalAccessTokensOf,
  type Database,
  findLivePersonalAccessTokensByHash,
  findPersonalAccessToken,
  findPersonalAccessTokenByFormId,
  generatePersonalTokenValue,
  hasPersonalTokenPrefix,
  insertPersonalAccessToken,
  isDuplicateFormId,
  isWellFormedPersonalToken,
  listPersonalAccessTokensOf,
  lockMember,
  markPersonalAccessTokenRevoked,
  type PersonalAccessTokenRow,
  revokeOidcModels,
  tokenHash,
} from '@contacts/db';
import { withoutIncludedScopes } from '@contacts/schemas';
import type Provider from 'oidc-provider';
import { PERSONAL_ACCESS_CLIENT_ID } from '../provider/client-metadata';
import { CONTACTS_API_RESOURCE, SUPPORTED_SCOPES } from '../provider/scopes';
import { InputError, requireText } from './validation';

export const PERSONAL_TOKEN_MAX_DAYS = 60;

/**
 * The most personal tokens a member's settings page lists at once: live ones, and revoked or
 * expired ones until the janitor removes them (30 days past their expiry).
 */
export const MAX_PERSONAL_TOKENS_PER_MEMBER = 200;

const tooManyTokens = () =>
  new InputError(
    `A member can hold at most ${MAX_PERSONAL_TOKENS_PER_MEMBER} personal access tokens, revoked and expired ones included until they are removed 30 days after expiring; revoke or wait for older ones to go first.`,
    'name',
  );
const DAY = 24 * 60 * 60;

export interface CreatedPersonalToken {
  id: number;
  /** The token itself: shown once, never stored. */
  token: string;
  expires_at: string;
}

/**
 * Personal access tokens are ordinary opaque access tokens minted through oidc-provider for
 * the internal personal-access client, each under a Grant of its own: the introspection
 * endpoint accepts them like any other token, and revoking one needs only its grant id.
 */
export function personalTokens(provider: Provider, db: Database) {
  const tokens = {
    /** `formId`: the settings form it is created from, stored on its row (see createFromForm). */
    async create(
      memberId: number,
      input: { name: unknown; scopes?: unknown; days?: unknown },
      formId?: string,
    ): Promise<CreatedPersonalToken> {
      const name = requireText(input.name, 'name', 'Name', 100);
      const scopes = parseScopes(input.scopes);
      const days = parseDays(input.days);
      const expiresIn = days * DAY;
      // Refused before any token is made; counted again, under the member's lock, where it is stored.
      if ((await countPersonalAccessTokensOf(db, memberId)) >= MAX_PERSONAL_TOKENS_PER_MEMBER) throw tooManyTokens();

      // The consent behind a personal token lives as long as the token (not GRANT_TTL), so that
      // the janitor removes both together; a minute longer, since the token's clock starts after
      // the grant's and the token must not outlive it. oidc-provider's tokens, Grant included,
      // take their lifetime as `expiresIn` at construction (its save() ignores any argument); the
      // type definitions omit it for Grant.
      const grant = new provider.Grant({
        accountId: String(memberId),
        clientId: PERSONAL_ACCESS_CLIENT_ID,
        expiresIn: expiresIn + 60,
      } as ConstructorParameters<typeof provider.Grant>[0]);
      grant.addResourceScope(CONTACTS_API_RESOURCE, scopes.join(' '));
      const grantId = await grant.save();
      const client = await provider.Client.find(PERSONAL_ACCESS_CLIENT_ID);
      if (!client) throw new Error('the personal-access client is missing');

      // The value carries a prefix and a checksum (personal-token-format.ts); oidc-provider keeps
      // an id it is given instead of drawing its own.
      const accessToken = new provider.AccessToken({
        jti: generatePersonalTokenValue(),
        accountId: String(memberId),
        client,
        grantId,
        gty: 'personal_access_token',
        scope: scopes.join(' '),
        expiresIn,
        resourceServer: new provider.ResourceServer(CONTACTS_API_RESOURCE, {
          scope: SUPPORTED_SCOPES.join(' '),
          accessTokenFormat: 'opaque',
        }),
      });
      // oidc-provider sets the format while drawing an id, which it skips when given one.
      Object.assign(accessToken, { format: 'opaque' });
      const token = await accessToken.save();
      // exp is computed while saving; read it back rather than guess the second it was taken at.
      const saved = await provider.AccessToken.find(token);
      if (!saved?.exp) throw new Error('the personal access token was not stored');
      const expiresAt = new Date(saved.exp * 1000);
      try {
        const row = await db.transaction(async (trx) => {
          await lockMember(trx, memberId);
          if ((await countPersonalAccessTokensOf(trx, memberId)) >= MAX_PERSONAL_TOKENS_PER_MEMBER)
            throw tooManyTokens();
          return insertPersonalAccessToken(trx, {
            member_id: memberId,
            name,
            token_hash: tokenHash(token),
            grant_id: grantId,
            scopes,
            expires_at: expiresAt,
            ...(formId === undefined ? {} : { form_id: formId }),
          });
        });
        return { id: row.id, token, expires_at: expiresAt.toISOString() };
      } catch (error) {
        await revokeOidcModels(db, { clientId: PERSONAL_ACCESS_CLIENT_ID, grantId });
        throw error;
      }
    },

    /**
     * A token from the settings form whose one-time id is `formId`; undefined when that form
     * already created one (a reload or Back posts it again), which is not shown again. Of two
     * submissions at once, the unique form id lets one row in; the other's token is revoked.
     */
    async createFromForm(
      memberId: number,
      formId: string,
      input: { name: unknown; scopes?: unknown; days?: unknown },
    ): Promise<CreatedPersonalToken | undefined> {
      if (await findPersonalAccessTokenByFormId(db, memberId, formId)) return undefined;
      try {
        return await tokens.create(memberId, input, formId);
      } catch (error) {
        if (isDuplicateFormId(error)) return undefined;
        throw error;
      }
    },

    list(memberId: number): Promise<PersonalAccessTokenRow[]> {
      return listPersonalAccessTokensOf(db, memberId);
    },

    /**
     * Revokes the member's token; the contacts API refuses it on the next request. False when it
     * was revoked already (a form sent again), so that the security log records it once.
     */
    async revoke(memberId: number, id: number): Promise<boolean> {
      const row = await findPersonalAccessToken(db, memberId, id);
      if (!row) throw new InputError('No such token.', 'id');
      return db.transaction(async (trx) => {
        const first = await markPersonalAccessTokenRevoked(trx, row.id);
        await revokeOidcModels(trx, { clientId: PERSONAL_ACCESS_CLIENT_ID, grantId: row.grant_id });
        return first;
      });
    },
  };
  return tokens;
}

export type PersonalTokens = ReturnType<typeof personalTokens>;

/**
 * Revokes those of the values that are live personal tokens (someone found them where they
 * should not be); returns which tokens of which members, for the security log. A value with the
 * prefix and a wrong checksum is not looked up. Each token is revoked in its own transaction.
 */
export async function revokeLeakedPersonalTokens(
  db: Database,
  values: string[],
): Promise<Array<{ id: number; memberId: number }>> {
  const hashes = [...new Set(values)]
    .filter((value) => !hasPersonalTokenPrefix(value) || isWellFormedPersonalToken(value))
    .map(tokenHash);
  const found = await findLivePersonalAccessTokensByHash(db, hashes);
  const revoked: Array<{ id: number; memberId: number }> = [];
  for (const row of found) {
    const first = await db.transaction(async (trx) => {
      if (!(await markPersonalAccessTokenRevoked(trx, row.id))) return false;
      await revokeOidcModels(trx, { clientId: PERSONAL_ACCESS_CLIENT_ID, grantId: row.grant_id });
      return true;
    });
    if (first) revoked.push({ id: row.id, memberId: row.member_id });
  }
  return revoked;
}

function parseScopes(value: unknown): string[] {
  const list = (Array.isArray(value) ? value : [value ?? '*'])
    .flatMap((item) => (typeof item === 'string' ? item.split(/[\s,]+/) : []))
    .filter(Boolean);
  if (list.length === 0) throw new InputError('Choose at least one scope.', 'scopes');
  const unknown = list.filter((scope) => !SUPPORTED_SCOPES.includes(scope));
  if (unknown.length > 0) throw new InputError(`Unknown scope: ${unknown.join(', ')}.`, 'scopes');
  // As every issued scope string: none that another already includes (`* contacts:read` is `*`).
  return withoutIncludedScopes([...new Set(list)]);
}

function parseDays(value: unknown): number {
  if (value === undefined || value === '' || value === null) return PERSONAL_TOKEN_MAX_DAYS;
  const days = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > PERSONAL_TOKEN_MAX_DAYS) {
    throw new InputError(`The expiry must be a whole number of days from 1 to ${PERSONAL_TOKEN_MAX_DAYS}.`, 'days');
  }
  return days;
}
