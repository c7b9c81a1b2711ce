import { createServer } from 'node:http';
import Koa from 'koa';
import pg from 'pg';

/**
 * The baseline: a bare Koa server on a pg pool of the same size as the services' (DB_POOL_MAX),
 * running the same SQL as the contacts API for one contact, a page, and an insert, with no
 * authentication, validation or serialisation. The member is named by the x-member header.
 */
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_MAX ?? 10),
  application_name: 'bench-bare',
});

const RECORD = `select "c".*, "bc"."name" as "business_category_name", "r"."name" as "referrer_name",
  "ci"."sha256" as "image_sha256" from "contacts" as "c"
  left join "business_categories" as "bc" on "bc"."id" = "c"."business_category_id"
  left join "members" as "r" on "r"."id" = "c"."referrer_id"
  left join "contact_images" as "ci" on "ci"."contact_id" = "c"."id"`;
const ONE = `${RECORD} where "c"."owner_id" = $1 and "c"."id" = $2`;
const PAGE = `${RECORD} where ("c"."owner_id", "c"."id") > ($1, 0) and "c"."owner_id" <= $1
  order by "c"."owner_id" asc, "c"."id" asc limit $2`;
const INSERT = `insert into "contacts" ("city", "company_name", "email", "name", "owner_id")
  values ($1, $2, $3, $4, $5) returning *`;

const app = new Koa();
app.use(async (ctx) => {
  const member = Number(ctx.get('x-member'));
  if (ctx.method === 'GET' && ctx.path === '/healthz') {
    await pool.query('select 1');
    ctx.body = { status: 'ok' };
  } else if (ctx.method === 'GET' && ctx.path === '/v4/contacts') {
    const { rows } = await pool.query(PAGE, [member, 101]);
    ctx.body = { data: rows.slice(0, 100) };
  } else if (ctx.method === 'GET' && ctx.path.startsWith('/v4/contacts/')) {
    const { rows } = await pool.query(ONE, [member, Number(ctx.path.slice('/v4/contacts/'.length))]);
    if (rows.length === 0) ctx.status = 404;
    else ctx.body = { data: rows[0] };
  } else if (ctx.method === 'POST' && ctx.path === '/v4/contacts') {
    let text = '';
    for await (const chunk of ctx.req) text += chunk;
    const input = JSON.parse(text) as Record<string, string | undefined>;
    const { rows } = await pool.query(INSERT, [input.city, input.company_name, input.email, input.name, member]);
    ctx.status = 201;
    ctx.body = { data: rows[0] };
  } else {
    ctx.status = 404;
  }
});

const server = createServer(app.callback());
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3009));
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
