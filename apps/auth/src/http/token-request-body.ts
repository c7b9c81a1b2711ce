import { MAX_OAUTH_BODY_BYTES } from '@contacts/schemas';
import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';

/**
 * The one place where a token request's body is read before oidc-provider reads it.
 *
 * oidc-provider parses the body inside its token route (lib/shared/selective_body.js); when an
 * upstream middleware has already consumed the stream it takes `ctx.req.body` instead (a Buffer
 * is parsed as the form it holds, an object as already-parsed form parameters). Two things here
 * need the body first, and both run as `provider.use()` middleware before the route:
 *
 * - a JSON token body (the original server accepted one): translated by `tokenJsonBody` into
 *   form parameters, so the provider's own parameter rules apply unchanged;
 * - the token rate limit, which counts per client_id: `preReadTokenForm` reads a form body once
 *   and leaves the same bytes for the provider.
 *
 * Route matching happens inside the provider, after `provider.use()` middleware has begun, so
 * the request is recognised by `provider.pathFor('token')`, the one spelling of it that
 * canonicalEndpointPaths leaves.
 */

/** oidc-provider's own limit for a request body (selective_body.js). */
const MAX_BODY = MAX_OAUTH_BODY_BYTES;

/** A body over MAX_BODY: 413, saying so, rather than the provider's "failed to parse the request body". */
class BodyTooLarge extends Error {}

/** Where oidc-provider looks for a body read upstream (koa-body's typing of it is narrower). */
interface RequestWithBody {
  body?: unknown;
}

export function isTokenRequest(provider: Provider): (ctx: Context) => boolean {
  const tokenPath = provider.pathFor('token');
  return (ctx) => ctx.method === 'POST' && ctx.path === tokenPath;
}

/**
 * Reads the body within the provider's size limit. The request is not destroyed when the body
 * is refused: the 400 still goes out on this connection.
 */
async function readBody(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function refuse(ctx: Context, description: string, status = 400): void {
  ctx.status = status;
  // As on every answer of the token endpoint (RFC 6749 §5.1), errors included, as the provider's own.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_request', error_description: description };
}

/** 413 (RFC 9110 §15.5.14) in the OAuth error shape: no OAuth request needs a body this large. */
function refuseTooLarge(ctx: Context): void {
  refuse(ctx, `the request body is larger than ${MAX_BODY / 1024} KiB`, 413);
}

/** The body types the token endpoint reads: a form (RFC 6749) and JSON (the original server's). */
const TOKEN_BODY_TYPES = ['application/x-www-form-urlencoded', 'application/json'] as const;

/**
 * POST /oauth/token with a JSON body: handed to oidc-provider as an already-parsed form body.
 * A body of any other type is refused here, naming both types: the provider, which sees only
 * form bodies, would say that only application/x-www-form-urlencoded is supported.
 */
export function tokenJsonBody(provider: Provider) {
  const isToken = isTokenRequest(provider);
  return async function translateJsonTokenBody(ctx: Context, next: Next) {
    if (!isToken(ctx)) return next();
    // As the provider (selective_body.js): no Content-Type at all is an empty form.
    if (ctx.get('content-type') && !ctx.is(...TOKEN_BODY_TYPES)) {
      return refuse(ctx, `only ${TOKEN_BODY_TYPES.join(' or ')} content-type bodies are supported on POST ${ctx.path}`);
    }
    if (!ctx.is('application/json')) return next();
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readBody(ctx)).toString('utf8'));
    } catch (error) {
      return error instanceof BodyTooLarge ? refuseTooLarge(ctx) : refuse(ctx, 'the request body is not valid JSON');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return refuse(ctx, 'the JSON body must be an object of parameters');
    }
    const form: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value === 'string') form[key] = value;
      else if (typeof value === 'number' || typeof value === 'boolean') form[key] = String(value);
      // An array or object has no form spelling; dropping it would answer as if it had not been
      // sent (a `scope` list granting the whole grant): invalid_request (RFC 6749 §5.2). null is absent.
      else if (value !== null) return refuse(ctx, `the JSON parameter ${key} must be a string`);
    }
    (ctx.req as unknown as RequestWithBody).body = form;
    ctx.request.headers['content-type'] = 'application/x-www-form-urlencoded';
    await next();
  };
}

/**
 * The token request's body as oidc-provider will see it: a Buffer (form bytes, read now if
 * need be) or the parameters tokenJsonBody made of a JSON body. Answers 400 itself and resolves
 * false when a form body cannot be read.
 */
export async function preReadTokenForm(ctx: Context): Promise<{ body: unknown } | false> {
  const req = ctx.req as unknown as RequestWithBody;
  if (req.body === undefined && ctx.is('application/x-www-form-urlencoded')) {
    try {
      req.body = await readBody(ctx);
    } catch (error) {
      if (error instanceof BodyTooLarge) refuseTooLarge(ctx);
      else refuse(ctx, 'failed to parse the request body');
      return false;
    }
  }
  return { body: req.body };
}
