import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTACTS_API_RESOURCE, createAuthServer, loadAuthConfig, SUPPORTED_SCOPES } from '@contacts/auth';
import { createLogger, serve, serviceRuntimeFrom } from '@contacts/config';
import { dataDirectory, openServiceDatabase } from '@contacts/db';
import type { Adapter, AdapterConstructor, AdapterFactory, Configuration } from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

/**
 * The authorization server as apps/auth/src/main.ts runs it, plus two things for the benchmark:
 *
 * - BENCH_ADAPTER=memory swaps oidc-provider's model storage for its own in-memory adapter
 *   (the product's configuration otherwise unchanged; clients are still read from PostgreSQL);
 * - POST /__bench/mint issues tokens inside this process (in-memory tokens exist nowhere else);
 *   an access token minted with `jkt` is DPoP-bound to that key thumbprint, exactly as the token
 *   endpoint binds one when the client sends a DPoP proof (oidc-provider's setThumbprint('jkt')).
 */
const logger = createLogger('auth');
const config = await loadAuthConfig(process.env, { port: 3001 });
const database = await openServiceDatabase({
  settings: { ...(config.runtime ?? serviceRuntimeFrom(process.env)).database, dataDir: dataDirectory(process.env) },
  applicationName: 'auth',
  log: (message) => logger.info(message),
});
const inMemory = process.env.BENCH_ADAPTER === 'memory';

function memoryAdapter(configuration: Configuration): Configuration {
  const Postgres = configuration.adapter as AdapterConstructor;
  // One store for every model (as oidc-provider's default), large enough never to evict a live token.
  const store = new LRU({ maxSize: 5_000_000 });
  const factory: AdapterFactory = (model: string): Adapter =>
    model === 'Client' ? new Postgres(model) : (new MemoryAdapter(model, store) as Adapter);
  return { ...configuration, adapter: factory };
}

const auth = await createAuthServer({
  db: database.db,
  config,
  logger,
  ...(inMemory ? { configureProvider: memoryAdapter } : {}),
});
const { provider } = auth;

interface MintRequest {
  kind: 'personal' | 'access' | 'refresh';
  memberId: number;
  clientId?: string;
  count?: number;
  /** Access tokens only: the RFC 7638 thumbprint of the client's DPoP key (`cnf.jkt`). */
  jkt?: string;
}

async function mintOne(request: MintRequest): Promise<string> {
  if (request.kind === 'personal') {
    return (await auth.personalTokens.create(request.memberId, { name: 'bench', scopes: ['*'] })).token;
  }
  const client = await provider.Client.find(String(request.clientId));
  if (!client) throw new Error(`no client ${request.clientId}`);
  const scope = SUPPORTED_SCOPES.filter((item) => item !== '*').join(' ');
  const grant = new provider.Grant({ accountId: String(request.memberId), clientId: client.clientId });
  grant.addResourceScope(CONTACTS_API_RESOURCE, scope);
  const grantId = await grant.save();
  if (request.kind === 'access') {
    const token = new provider.AccessToken({
      accountId: String(request.memberId),
      client,
      grantId,
      gty: 'authorization_code',
      scope,
      resourceServer: new provider.ResourceServer(CONTACTS_API_RESOURCE, {
        scope: SUPPORTED_SCOPES.join(' '),
        accessTokenFormat: 'opaque',
      }),
    });
    if (request.jkt !== undefined) token.setThumbprint('jkt', request.jkt);
    return token.save();
  }
  const refresh = new provider.RefreshToken({
    accountId: String(request.memberId),
    client,
    grantId,
    gty: 'authorization_code',
    scope,
    resource: CONTACTS_API_RESOURCE,
  });
  return refresh.save();
}

async function mint(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body = '';
  for await (const chunk of req) body += chunk;
  try {
    const request = JSON.parse(body) as MintRequest;
    const tokens: string[] = [];
    for (let index = 0; index < (request.count ?? 1); index++) tokens.push(await mintOne(request));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tokens }));
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String((error as Error).stack));
  }
}

const handler = auth.app.callback();
await serve({
  name: 'auth',
  port: config.port,
  handler: (req, res) => {
    if (req.method === 'POST' && req.url === '/__bench/mint') void mint(req, res);
    else void handler(req, res);
  },
  logger,
  onClose: async () => {
    await auth.close();
    await database.close();
  },
});
logger.info(`auth (${inMemory ? 'in-memory' : 'PostgreSQL'} adapter) listening on port ${config.port}`);
