import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { FIND_RECORD, INSERT_RECORD, WRITABLE_COLUMNS } from '@contacts/db/contact-record-statements';
import Koa from 'koa';
import pg from 'pg';

/**
 * The ceiling of a read and of a create: bare `node:http` on a pg pool of the services' size
 * (DB_POOL_MAX), running the contacts API's own statements as named prepared statements and
 * answering JSON, with no authentication, validation, serialisation or middleware. The member is
 * named by the x-member header.
 */
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_MAX ?? 10),
  application_name: 'bench-bare-http',
});

interface Answer {
  status: number;
  body: unknown;
}

/** The two statements, whatever serves them. */
async function answer(method: string, url: string, member: number, body: () => Promise<string>): Promise<Answer> {
  if (method === 'GET' && url === '/healthz') {
    await pool.query('select 1');
    return { status: 200, body: { status: 'ok' } };
  }
  if (method === 'GET' && url.startsWith('/v4/contacts/')) {
    const id = Number(url.slice('/v4/contacts/'.length));
    const { rows } = await pool.query({ ...FIND_RECORD, values: [member, id] });
    return rows.length === 0 ? { status: 404, body: { error: 'not_found' } } : { status: 200, body: { data: rows[0] } };
  }
  if (method === 'POST' && url === '/v4/contacts') {
    const input = JSON.parse(await body()) as Record<string, string | undefined>;
    const values = [member, ...WRITABLE_COLUMNS.map((column) => input[column] ?? null)];
    const { rows } = await pool.query({ ...INSERT_RECORD, values });
    return { status: 201, body: { data: rows[0] } };
  }
  return { status: 404, body: { error: 'not_found' } };
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text;
}

function json(res: ServerResponse, { status, body }: Answer): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function plainHandler(req: IncomingMessage, res: ServerResponse): void {
  answer(req.method ?? 'GET', req.url ?? '/', Number(req.headers['x-member']), () => readAll(req))
    .then((result) => json(res, result))
    .catch((error: unknown) => json(res, { status: 500, body: { error: String(error) } }));
}

/**
 * BARE_FRAMEWORK=koa: the same statements answered by one Koa middleware, the framework the API
 * is built on, so that the run shows what Koa itself costs against bare node:http.
 */
function koaHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  const app = new Koa();
  app.use(async (ctx) => {
    const result = await answer(ctx.method, ctx.url, Number(ctx.get('x-member')), () => readAll(ctx.req));
    ctx.status = result.status;
    ctx.body = result.body;
  });
  return app.callback();
}

const server = createServer(process.env.BARE_FRAMEWORK === 'koa' ? koaHandler() : plainHandler);
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3010));
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
