import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  API_DOCS_CLIENT_ID,
  API_DOCS_REDIRECT_PATH,
  apiDocsRedirectUri,
  DPOP_SIGNING_ALGORITHMS,
} from '@contacts/config';
import { buildOpenApiDocument, type CONTACT_SCOPES } from '@contacts/schemas';
import { Router } from '@koa/router';
import { openApiPaths, type RegisteredRoute } from '../http/openapi-paths';

/**
 * GET /openapi.json, and a docs page at /docs with Swagger UI served from the npm package
 * (no CDN: the page works offline and under a strict Content-Security-Policy).
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
  // The OAuth callback page (the docs client's redirect URI) and its script, which hands the
  // authorization code back to the /docs window that opened the sign-in popup.
  'oauth2-redirect.html': 'text/html; charset=utf-8',
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
};

/**
 * Where Swagger UI's own colours fall below WCAG 2.1's 4.5:1 for text (1.4.3, AA): the method
 * labels (white on #49cc90 is 2.0:1), the version badges, the document's address, the Authorize
 * button, the deprecated (v3) operations, drawn at 60 % opacity, and the schemas' Expand all.
 */
const ACCESSIBLE_CSS = `.swagger-ui .opblock .opblock-summary-method { color: #000; text-shadow: none; }
.swagger-ui .info .title small { background: #4a4f58; }
.swagger-ui .info .title small.version-stamp { background: #3d6100; }
.swagger-ui .info .url, .swagger-ui .info a { color: #1d4f9c; }
.swagger-ui .btn.authorize { color: #1e6b41; border-color: #1e6b41; }
.swagger-ui .btn.authorize span { color: inherit; }
.swagger-ui .btn.authorize svg { fill: #1e6b41; }
.swagger-ui .opblock.opblock-deprecated { opacity: 1; }
.swagger-ui .opblock.opblock-deprecated .opblock-summary-path__deprecated,
.swagger-ui .opblock.opblock-deprecated .opblock-summary-path__deprecated span,
.swagger-ui .opblock.opblock-deprecated .opblock-summary-description { color: #3f3f3f; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #505050; }
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Member contacts API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="stylesheet" href="/docs/accessible.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const DPOP_HELP =
  'DPoP-bound tokens (RFC 9449) need a fresh proof signed by the client for every request, which this page cannot make: try them with a client that signs proofs (see the README, "Sender-constrained tokens"). The OAuth sign-in above gives this page a Bearer token.';

/**
 * External file, not inline, so that a CSP without 'unsafe-inline' allows it. The Authorize
 * button runs the authorization code flow with PKCE as the public client of the docs page; its
 * redirect URI is the one the authorization server derives from the same PUBLIC_URL.
 */
function initScript(publicUrl: string): string {
  const settings = {
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    // Without the standalone top bar: its box loads any other document (confusing on this page)
    // and is the page's unlabeled field.
    layout: 'BaseLayout',
    oauth2RedirectUrl: apiDocsRedirectUri(publicUrl),
  };
  const oauth = {
    clientId: API_DOCS_CLIENT_ID,
    usePkceWithAuthorizationCodeGrant: true,
    // Pre-selected in the Authorize dialog: reading; the member can tick more.
    scopes: ['contacts:read'] satisfies Array<keyof typeof CONTACT_SCOPES>,
  };
  return `// The one server needs no picker (Swagger UI's has no accessible name, WCAG 4.1.2), and the
// Authorize dialog says what DPoP needs rather than Swagger UI's "unsupported scheme".
const dpopHelp = ${JSON.stringify(DPOP_HELP)};
const plainPage = () => ({
  wrapComponents: {
    ServersContainer: () => () => null,
    HttpAuth: (Original, system) => (props) =>
      String(props.schema.get('scheme')).toLowerCase() === 'dpop'
        ? system.React.createElement('div', null, system.React.createElement('h4', null, props.name + ' (DPoP)'), system.React.createElement('p', null, dpopHelp))
        : system.React.createElement(Original, props),
  },
});
window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(settings)}, {
  presets: [SwaggerUIBundle.presets.apis],
  plugins: [plainPage],
}));
window.ui.initOAuth(${JSON.stringify(oauth)});
`;
}

export function openApiRoutes(options: {
  publicUrl: string;
  /** AUTH_URL: where clients reach the authorization server. */
  authUrl: string;
  routes: readonly RegisteredRoute[];
}): Router {
  const router = new Router();
  const document = JSON.stringify(
    buildOpenApiDocument({
      serverUrl: options.publicUrl,
      authUrl: options.authUrl,
      paths: openApiPaths(options.routes),
      dpopAlgorithms: DPOP_SIGNING_ALGORITHMS,
    }),
  );
  const init = initScript(options.publicUrl);
  // The package's folder, found without importing its entry point, which would load (and keep
  // in memory) the whole 1.5 MB Swagger UI bundle meant for browsers.
  const assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // [security] Never framed: signed in, the page holds a member's token and offers to send any
  // request with it (clickjacking, RFC 9700 §4.16), as the auth server's pages are never framed.
  // No referrer: the OAuth callback page's address carries the authorization code.
  const security = (ctx: { set(field: string, value: string): void }) => {
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    );
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Content-Type-Options', 'nosniff');
  };

  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    security(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/accessible.css', (ctx) => {
    security(ctx);
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = ACCESSIBLE_CSS;
  });
  router.get('/docs/init.js', (ctx) => {
    security(ctx);
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = init;
  });
  router.get('/docs/:asset', async (ctx, next) => {
    const name = ctx.params.asset ?? '';
    const type = ASSETS[name];
    if (!type) return next();
    security(ctx);
    ctx.type = type;
    // The OAuth callback is loaded with a code in its query: no cache keeps an entry under that URL.
    ctx.set('Cache-Control', ctx.path === API_DOCS_REDIRECT_PATH ? 'no-store' : 'public, max-age=86400');
    ctx.body = await readFile(path.join(assetDir, name));
  });
  return router;
}
