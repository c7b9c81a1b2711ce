/**
 * The client side of RFC 7662 token introspection at the authorization server, authenticated
 * with the contacts API's own client credentials (HTTP Basic, RFC 6749 §2.3.1 encoding).
 */
export type Introspection =
  | { active: false }
  | {
      active: true;
      memberId: number;
      scopes: string[];
      clientId: string | undefined;
      exp: number | undefined;
      /** The DPoP key thumbprint the token is bound to (`cnf.jkt`, RFC 9449 §6.2); undefined for a bearer token. */
      jkt?: string | undefined;
    };

/** The authorization server could not give an answer (down, timing out, or misconfigured). */
export class AuthServerUnavailable extends Error {}

/**
 * The authorization server answers, but not to this API: it refuses the introspection
 * credentials (INTROSPECTION_CLIENT_ID / INTROSPECTION_CLIENT_SECRET differ between the two).
 */
export class IntrospectionCredentialsRefused extends AuthServerUnavailable {}

export interface IntrospectionClientOptions {
  authInternalUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
}

export type Introspect = (token: string) => Promise<Introspection>;

export function introspectionClient(options: IntrospectionClientOptions): Introspect {
  const url = `${options.authInternalUrl}/oauth/introspect`;
  const credentials = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64');
  return async (token) => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${credentials}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      });
    } catch (error) {
      throw new AuthServerUnavailable(`introspection request to ${url} failed: ${failureOf(error)}`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      if (response.status === 401) {
        throw new IntrospectionCredentialsRefused(
          'the authorization server refuses the introspection credentials (HTTP 401): INTROSPECTION_CLIENT_ID and ' +
            'INTROSPECTION_CLIENT_SECRET must be the ones the auth server has',
        );
      }
      throw new AuthServerUnavailable(`introspection answered HTTP ${response.status}`);
    }
    let body: Record<string, unknown>;
    try {
      body = (await response.json()) as Record<string, unknown>;
    } catch {
      throw new AuthServerUnavailable('introspection answered something that is not JSON');
    }
    return parseIntrospection(body);
  };
}

/** How long a verdict on the introspection credentials stands (readiness asks every few seconds). */
export const CREDENTIALS_CHECK_INTERVAL_MS = 30_000;
const PROBE_TOKEN = 'contacts-api-readiness-probe';

/**
 * Whether the authorization server accepts this API's introspection credentials: undefined when
 * it does, else why not. Asked by introspecting a token nobody issued, at most once per
 * `intervalMs` while the answer is a verdict (accepted or refused): each question costs the auth
 * server a request, a lookup and a log line, and readiness probes come every few seconds. An
 * auth server that could not answer is asked again at the next call.
 */
export function introspectionCredentialsCheck(
  introspect: Introspect,
  intervalMs = CREDENTIALS_CHECK_INTERVAL_MS,
  now: () => number = Date.now,
): () => Promise<string | undefined> {
  let verdict: { at: number; problem: string | undefined } | undefined;
  return async () => {
    if (verdict && now() - verdict.at < intervalMs) return verdict.problem;
    try {
      await introspect(PROBE_TOKEN);
      verdict = { at: now(), problem: undefined };
    } catch (error) {
      if (error instanceof IntrospectionCredentialsRefused) verdict = { at: now(), problem: error.message };
      else if (error instanceof AuthServerUnavailable) return `introspection failed: ${error.message}`;
      else throw error;
    }
    return verdict.problem;
  };
}

/**
 * The token types this API accepts (RFC 7662 `token_type`, RFC 9449 §6.2): access tokens only.
 * [security] A refresh token is active at introspection too (oidc-provider answers it without a
 * token_type), but it is the client's credential for the token endpoint, not an access token:
 * accepted here, a leaked refresh token would be a 30-day API token without the client secret.
 */
const ACCESS_TOKEN_TYPES = new Set(['Bearer', 'DPoP']);

/** Reads an RFC 7662 response; anything that is not an access token naming a member is treated as inactive. */
export function parseIntrospection(body: Record<string, unknown>): Introspection {
  if (body.active !== true) return { active: false };
  if (typeof body.token_type !== 'string' || !ACCESS_TOKEN_TYPES.has(body.token_type)) return { active: false };
  const memberId = typeof body.sub === 'string' && /^\d{1,10}$/.test(body.sub) ? Number(body.sub) : Number.NaN;
  if (!Number.isSafeInteger(memberId) || memberId < 1) return { active: false };
  const exp = typeof body.exp === 'number' ? body.exp : undefined;
  if (exp !== undefined && exp * 1000 <= Date.now()) return { active: false };
  return {
    active: true,
    memberId,
    scopes: typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [],
    clientId: typeof body.client_id === 'string' ? body.client_id : undefined,
    exp,
    jkt: dpopThumbprintOf(body.cnf),
  };
}

/** [security] `cnf.jkt` of a DPoP-bound token (RFC 9449 §6.2). */
function dpopThumbprintOf(cnf: unknown): string | undefined {
  if (cnf === null || typeof cnf !== 'object') return undefined;
  const jkt = (cnf as Record<string, unknown>).jkt;
  return typeof jkt === 'string' && jkt !== '' ? jkt : undefined;
}

/**
 * Why a fetch failed, for the operator: undici says only "fetch failed" and keeps the reason
 * (ECONNREFUSED 127.0.0.1:3001, a timeout, …) in its cause.
 */
function failureOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (!cause) return error.message;
  return `${error.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
}
