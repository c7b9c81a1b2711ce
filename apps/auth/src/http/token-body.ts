import type { Context } from 'koa';

/** oidc-provider's own limit for a request body. */
const MAX_BODY = 56 * 1024;

/**
 * Reads a /oauth/token body before oidc-provider does (to translate JSON, or to find the client
 * for its rate limit), within the provider's size limit. The request is not destroyed when the
 * body is refused: the 400 still goes out on this connection.
 */
export async function readTokenRequestBody(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
