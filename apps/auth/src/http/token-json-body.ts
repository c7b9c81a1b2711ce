import type { Context, Next } from 'koa';
import { readTokenRequestBody } from './token-body';

/**
 * POST /oauth/token also accepts a JSON body with the same parameters as the form (the original
 * server did, and the seed leaves the refresh request's encoding open). The JSON is read here and
 * handed to oidc-provider as an already-parsed form body, so the provider's own parameter rules
 * apply unchanged.
 */
export async function tokenJsonBody(ctx: Context, next: Next) {
  if (ctx.method !== 'POST' || ctx.path !== '/oauth/token' || !ctx.is('application/json')) return next();
  let parsed: unknown;
  try {
    parsed = JSON.parse((await readTokenRequestBody(ctx)).toString('utf8'));
  } catch {
    ctx.status = 400;
    ctx.body = { error: 'invalid_request', error_description: 'the request body is not valid JSON' };
    return;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    ctx.status = 400;
    ctx.body = { error: 'invalid_request', error_description: 'the JSON body must be an object of parameters' };
    return;
  }
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') form[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') form[key] = String(value);
  }
  (ctx.req as typeof ctx.req & { body?: unknown }).body = form;
  ctx.request.headers['content-type'] = 'application/x-www-form-urlencoded';
  await next();
}
