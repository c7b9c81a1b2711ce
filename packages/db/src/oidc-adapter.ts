import type { Database } from './connection';
import { preparedAs, queryPrepared } from './prepared';
import {
  deferredTokenWrites,
  forgetGrant,
  type PendingTokenRow,
  rememberAccount,
  rememberGrant,
  takeRememberedGrant,
} from './request-scope';
import { tokenHash } from './token-hash';
import { ANNOUNCED_TOKEN_MODELS, notifyTokenRevocations } from './token-revocation-notices';

/**
 * oidc-provider's storage on PostgreSQL: one table, oidc_models, for every model it persists.
 *
 * Rows are keyed by a hash of the model id, and the raw id (`jti`) is dropped from the stored
 * payload: for opaque tokens the id IS the bearer value, so a copy of the database yields no
 * usable token, code or session. Revoked access tokens are announced on the revocation channel.
 */
export type AdapterPayload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  accountId?: string;
  clientId?: string;
  consumed?: unknown;
  jti?: string;
};

export interface OidcModelRow {
  model: string;
  id_hash: string;
  payload: AdapterPayload;
  grant_id: string | null;
  uid: string | null;
  account_id: string | null;
  client_id: string | null;
  expires_at: Date | null;
  consumed_at: Date | null;
}

export interface OidcAdapterOptions {
  /** Client metadata for an id (the Client model is read from our own tables, not stored here). */
  findClient(id: string): Promise<AdapterPayload | undefined>;
  /** Thrown when a code or refresh token is consumed a second time (two requests raced with it). */
  consumedTwiceError(model: string): Error;
  /**
   * Seconds during which a refresh token that was already used is still accepted (a client that
   * lost the response may retry); 0 or undefined: never, every reuse is treated as theft.
   */
  refreshTokenReuseGrace?: number | undefined;
  /**
   * Where access-token lookups are kept between requests (introspection asks about the same
   * tokens again and again); without it every lookup reads the table.
   */
  accessTokenMemory?: TokenLookupMemory | undefined;
}

/**
 * Keeps what find() read for a token, keyed by the id's hash. How long an entry stays and how it
 * learns of revocations is the memory's business (apps/auth provider/access-token-memory.ts);
 * the adapter only promises to call startRead() before a read and keep() after it, so that a
 * read that raced with a revocation can be recognised and left out.
 */
export interface TokenLookupMemory {
  /** A lookup kept earlier that is still true once every revocation committed before the call has been seen. */
  recall(idHash: string): Promise<TokenLookup | undefined>;
  /** Marks the start of a read; hand the mark to keep(). */
  startRead(): number;
  keep(idHash: string, lookup: TokenLookup, readAt: number): void;
}

/** What find() needs of a row; listed rather than `*` because the lookups are prepared statements. */
const STORED_COLUMNS = ['payload', 'consumed_at'];
type StoredRow = Pick<OidcModelRow, 'payload' | 'consumed_at'>;
/** What find() reads for a token: its row, its grant and its member. */
export type TokenLookup = StoredRow & {
  grant_payload?: AdapterPayload | null;
  /** The token's member, when its account id names one, and whether it is enabled. */
  member_id?: number | null;
  member_enabled?: boolean | null;
  in_grace?: boolean;
};

/** Models a token request stores, and the codes and tokens it consumes: written together (oidc-token-writes.ts). */
const DEFERRABLE_MODELS = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode']);

/** Models whose rows name a grant that oidc-provider loads right after the token. */
const GRANT_BEARING_MODELS = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode']);

export interface OidcAdapter {
  upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<AdapterPayload | undefined>;
  findByUid(uid: string): Promise<AdapterPayload | undefined>;
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

export function createOidcAdapterClass(
  pool: Database,
  options: OidcAdapterOptions,
): new (
  model: string,
) => OidcAdapter {
  const grace = options.refreshTokenReuseGrace ?? 0;
  return class PostgresOidcAdapter implements OidcAdapter {
    private readonly lookup: { name: string; text: string };

    constructor(private readonly model: string) {
      this.lookup = tokenLookupStatement(GRANT_BEARING_MODELS.has(model), this.graced);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const stored = storedPayload(this.model, payload);
      // The clock is the process's (Date.now), as oidc-provider's own expiry checks are.
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      if (this.model === 'Grant') forgetGrant(id);
      const row: PendingTokenRow = {
        model: this.model,
        id_hash: tokenHash(id),
        payload: JSON.stringify(stored),
        // A Grant row carries its own id here, so that a token's lookup can join its grant.
        grant_id: payload.grantId ?? (this.model === 'Grant' ? id : null),
        uid: payload.uid ?? null,
        account_id: payload.accountId ?? null,
        client_id: payload.clientId ?? null,
        expires_at: expiresAt,
      };
      const pending = DEFERRABLE_MODELS.has(this.model) ? deferredTokenWrites() : undefined;
      if (pending) {
        pending.store.push(row);
        return;
      }
      await pool('oidc_models')
        .insert(row)
        .onConflict(['model', 'id_hash'])
        .merge()
        .options(preparedAs('oidc_models.upsert'));
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return options.findClient(id);
      if (this.model === 'Grant') {
        const remembered = takeRememberedGrant(id);
        if (remembered) return withRestoredId({ payload: remembered, consumed_at: null }, id);
      }
      const idHash = tokenHash(id);
      const memory = this.model === 'AccessToken' ? options.accessTokenMemory : undefined;
      let row = await memory?.recall(idHash);
      if (!row) {
        const readAt = memory?.startRead();
        row = await this.read(idHash);
        if (row && memory && readAt !== undefined) memory.keep(idHash, row, readAt);
      }
      if (!row) return undefined;
      const grantId = row.payload.grantId;
      if (row.grant_payload && typeof grantId === 'string') rememberGrant(grantId, row.grant_payload);
      if (row.member_id != null) rememberAccount(String(row.member_id), row.member_enabled === true);
      // A refresh token used within the grace period still looks unused to oidc-provider.
      return withRestoredId(row.in_grace ? { ...row, consumed_at: null } : row, id);
    }

    /** One round trip: a token's grant and member come along (oidc-provider asks for them next), not three. */
    private async read(idHash: string): Promise<TokenLookup | undefined> {
      const [row] = await queryPrepared<TokenLookup>(pool, this.lookup.name, this.lookup.text, [
        this.model,
        idHash,
        ...(this.graced ? [grace] : []),
      ]);
      return row;
    }

    private get graced(): boolean {
      return this.model === 'RefreshToken' && grace > 0;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const row = await pool('oidc_models')
        .where({ model: this.model, uid })
        .first<StoredRow | undefined>(STORED_COLUMNS)
        .options(preparedAs('oidc_models.find-by-uid'));
      return row ? withRestoredId(row, undefined) : undefined;
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined; // the device flow is not enabled
    }

    async consume(id: string): Promise<void> {
      // Atomic: of two requests racing with one code or refresh token, exactly one updates the row.
      // Within the refresh-token grace period a second use is accepted; the first use's time is kept.
      const pending = DEFERRABLE_MODELS.has(this.model) ? deferredTokenWrites() : undefined;
      if (pending && !pending.consume) {
        // Written with the tokens it is exchanged for, or not at all (oidc-token-writes.ts).
        pending.consume = { model: this.model, idHash: tokenHash(id), graceSeconds: this.graced ? grace : 0 };
        return;
      }
      const updated = this.graced
        ? await pool('oidc_models')
            .where({ model: this.model, id_hash: tokenHash(id) })
            .andWhereRaw('(consumed_at is null or consumed_at > now() - make_interval(secs => ?))', [grace])
            .update({ consumed_at: pool.raw('coalesce(consumed_at, now())') })
            .options(preparedAs('oidc_models.consume-graced'))
        : await pool('oidc_models')
            .where({ model: this.model, id_hash: tokenHash(id) })
            .whereNull('consumed_at')
            .update({ consumed_at: pool.fn.now() })
            .options(preparedAs('oidc_models.consume'));
      if (updated === 0) throw options.consumedTwiceError(this.model);
    }

    async destroy(id: string): Promise<void> {
      if (this.model === 'Grant') forgetGrant(id);
      await this.deleteAndAnnounce({ model: this.model, id_hash: tokenHash(id) });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      forgetGrant(grantId);
      await this.deleteAndAnnounce({ model: this.model, grant_id: grantId });
    }

    private async deleteAndAnnounce(where: Partial<OidcModelRow>): Promise<void> {
      await pool.transaction(async (trx) => {
        const deleted: Array<{ id_hash: string }> = await trx('oidc_models').where(where).delete().returning('id_hash');
        if (ANNOUNCED_TOKEN_MODELS.has(this.model)) {
          await notifyTokenRevocations(
            trx,
            deleted.map((row) => row.id_hash),
          );
        }
      });
    }
  };
}

/**
 * The token lookup's SQL, one fixed text per shape (with the grant and member or not, with the
 * grace-period flag or not), built once per model so that a request runs the named prepared
 * statement without building it: knex's query builder was 7 % of a refresh's CPU time.
 * $1 model, $2 id hash, $3 grace seconds (graced shape only).
 */
function tokenLookupStatement(withGrant: boolean, graced: boolean): { name: string; text: string } {
  const columns = [
    't.payload',
    't.consumed_at',
    ...(withGrant
      ? ['g.payload as grant_payload', 'm.id as member_id', 'm.disabled_at is null as member_enabled']
      : []),
    ...(graced ? ['t.consumed_at > now() - make_interval(secs => $3) as in_grace'] : []),
  ];
  const joins = withGrant
    ? // Account ids are member ids as text; anything else joins nothing and is looked up as before.
      `left join oidc_models as g on g.grant_id = t.grant_id and g.model = 'Grant'
       left join members as m on m.id = case when t.account_id ~ '^[1-9][0-9]{0,8}$' then t.account_id::int end`
    : '';
  return {
    name: `oidc_models.find${withGrant ? ':with-grant' : ''}${graced ? ':graced' : ''}`,
    text: `select ${columns.join(', ')} from oidc_models as t ${joins} where t.model = $1 and t.id_hash = $2 limit 1`,
  };
}

function withRestoredId(row: StoredRow, id: string | undefined): AdapterPayload {
  return {
    ...row.payload,
    ...(id !== undefined ? { jti: id } : {}),
    ...(row.consumed_at ? { consumed: Math.floor(row.consumed_at.getTime() / 1000) } : {}),
  };
}

/**
 * A model's payload as stored: without the credentials oidc-provider puts in it. Every model's
 * id (`jti`) is the token, code or session cookie itself (only its hash is the row's key), but a
 * Grant's, which names a consent and is needed to find it again. An Interaction records the
 * browser's provider session cookie (`session.cookie`, lib/models/interaction.js), which
 * oidc-provider 9 never reads back: left out, so that a copy of the database holds no session.
 */
function storedPayload(model: string, payload: AdapterPayload): AdapterPayload {
  if (model === 'Grant') return payload;
  const { jti: _rawId, ...stored } = payload;
  if (model === 'Interaction' && stored.session && typeof stored.session === 'object') {
    const { cookie: _cookie, ...session } = stored.session as Record<string, unknown>;
    return { ...stored, session } as AdapterPayload;
  }
  return stored;
}
