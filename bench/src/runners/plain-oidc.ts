import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider, { type Adapter, type Configuration } from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

/**
 * The library's own speed: plain oidc-provider (the lockfile's version) with its defaults and its
 * built-in in-memory adapter, static clients (the bench's app client and the introspection
 * client), opaque tokens, the product's TTLs, refresh tokens rotated on every use, introspection
 * and revocation on. Departures from the defaults beyond those: the product's endpoint paths (so
 * that the same requests serve both), its cookie keys, which no measured endpoint uses, and the
 * size of the in-memory adapter's store (below); the signing keys are the library's development
 * ones (no ID token is issued here: no `openid` scope). POST /__bench/mint issues tokens inside
 * this process, as in the auth runner.
 */
const env = process.env;
const required = (name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const DAY = 24 * 60 * 60;
const APP_CLIENT_ID = required('BENCH_APP_CLIENT_ID');
// The library's in-memory adapter, on a larger store than its default 1,000 entries: under refresh
// load that store evicts within a second the idle refresh tokens the bench keeps in reserve (for the
// chains whose last answer autocannon drops when a run ends), and their refreshes would fail.
const store = new LRU({ maxSize: 5_000_000 });

const configuration: Configuration = {
  clients: [
    {
      client_id: APP_CLIENT_ID,
      client_secret: required('BENCH_APP_CLIENT_SECRET'),
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback'],
    },
    {
      client_id: required('INTROSPECTION_CLIENT_ID'),
      client_secret: required('INTROSPECTION_CLIENT_SECRET'),
      grant_types: [],
      response_types: [],
      redirect_uris: [],
    },
  ],
  cookies: { keys: required('COOKIE_KEYS').split(',') },
  routes: { token: '/oauth/token', introspection: '/oauth/introspect', revocation: '/oauth/revoke' },
  adapter: (model: string) => new MemoryAdapter(model, store) as Adapter,
  ttl: { AccessToken: 14 * DAY, RefreshToken: 30 * DAY },
  rotateRefreshToken: true,
  features: { introspection: { enabled: true }, revocation: { enabled: true } },
};
const provider = new Provider(`http://127.0.0.1:${env.PORT ?? 3011}`, configuration);

interface MintRequest {
  kind: 'access' | 'refresh';
  memberId: number;
  clientId?: string;
  count?: number;
}

/** Tokens as a code exchange with `offline_access` would issue them: opaque, no resource. */
async function mintOne(request: MintRequest): Promise<string> {
  const client = await provider.Client.find(String(request.clientId ?? APP_CLIENT_ID));
  if (!client) throw new Error(`no client ${request.clientId}`);
  const accountId = String(request.memberId);
  const scope = 'offline_access';
  const grant = new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  const claims = { accountId, client, grantId, gty: 'authorization_code', scope };
  if (request.kind === 'access') return new provider.AccessToken(claims).save();
  return new provider.RefreshToken(claims).save();
}

async function mint(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body = '';
  for await (const chunk of req) body += chunk;
  try {
    const request = JSON.parse(body) as MintRequest;
    if (request.kind !== 'access' && request.kind !== 'refresh') throw new Error(`cannot mint ${request.kind}`);
    const tokens: string[] = [];
    for (let index = 0; index < (request.count ?? 1); index++) tokens.push(await mintOne(request));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tokens }));
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String((error as Error).stack));
  }
}

// Why a grant failed (the answer says only "grant request is invalid"), for the run's log.
provider.on('grant.error', (_ctx, error) => {
  console.error(`grant.error: ${(error as { error_detail?: string }).error_detail ?? String(error)}`);
});
const handler = provider.callback();
const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/__bench/mint') void mint(req, res);
  else if (req.method === 'GET' && req.url === '/healthz') res.writeHead(200).end('ok');
  else void handler(req, res);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(env.PORT ?? 3011));
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
