import type { Context, Next } from 'koa';
import { ICON, ICON_PATH, STYLESHEET, STYLESHEET_PATH } from '../views/assets';

interface Asset {
  type: string;
  body: Buffer;
}

// Modules rather than files read at start-up: the production bundle carries them with the code.
const icon: Asset = { type: 'image/svg+xml', body: Buffer.from(ICON) };
const ASSETS = new Map<string, Asset>([
  // The pages' one stylesheet (a file, so that the CSP needs no 'unsafe-inline').
  [STYLESHEET_PATH, { type: 'text/css', body: Buffer.from(STYLESHEET) }],
  [ICON_PATH, icon],
  // Where a browser looks for an icon on a page that names none (/docs, a JSON answer, an error
  // of the provider's): answered, so that no page load logs a 404 in the console.
  ['/favicon.ico', icon],
]);

export async function assets(ctx: Context, next: Next) {
  const asset = ctx.method === 'GET' || ctx.method === 'HEAD' ? ASSETS.get(ctx.path) : undefined;
  if (!asset) return next();
  ctx.type = asset.type;
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = asset.body;
}
