import type http from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  fuzzRuns,
  fuzzSeed,
  HOSTILE_IDS,
  HOSTILE_STRINGS,
  type RawRequest,
  type RawResponse,
  rawAgent,
  send,
} from '@contacts/config/testing/raw-http';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aClient, aContact, aGroup, aMember, type Client, JPEG, PNG } from './support/factories';
import { type Stack, startStack } from './support/servers';

/**
 * Property-based fuzzing of every contacts API endpoint (v3 and v4) with hostile requests
 * through a raw HTTP client: any method, path parameters out of range, random and malformed
 * bodies and content types, broken multipart, huge headers and query strings, invalid UTF-8,
 * injection strings. Properties: never a 5xx; every error in the version's documented shape;
 * the contacts tables unchanged after every batch in which no write succeeded; another member's
 * contacts never touched. FUZZ_RUNS (default 10,000) sets the number of requests.
 */
const RUNS = fuzzRuns(10_000);
const BATCH = 10;
/** Node's default limit for the request line and headers together (max-http-header-size). */
const HEADER_LIMIT = 16 * 1024;

let stack: Stack;
let fuzzer: Client;
let reader: Client;
let bystanderContacts: number[] = [];
let ownIds: number[] = [];
let agent: http.Agent;

beforeAll(async () => {
  stack = await startStack();
  fuzzer = await aClient(stack, { scopes: ['*'] });
  reader = await aClient(stack, { scopes: ['contacts:read'] });
  const bystander = await aMember(stack.db);
  const group = await aGroup(stack.db, [fuzzer.member, bystander]);
  for (let i = 0; i < 5; i++) bystanderContacts.push(await aContact(stack.db, bystander, { group_id: group.id }));
  for (let i = 0; i < 20; i++) ownIds.push(await aContact(stack.db, fuzzer.member, { email: `own${i}@example.test` }));
  bystanderContacts = bystanderContacts.sort((a, b) => a - b);
  ownIds = ownIds.sort((a, b) => a - b);
  agent = rawAgent(BATCH);
});
afterAll(async () => {
  agent?.destroy();
  await stack?.close();
});

/** Latin-1 only (what an HTTP/1.1 header or path can carry); bytes ≥ 0x80 are invalid UTF-8 on the wire. */
const percent = (char: string) =>
  [...Buffer.from(char)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
const latin1 = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, percent);
const segment = (value: string) => latin1(value).replace(/[\s/?#]/g, percent);
/** encodeURIComponent, also for lone surrogates (which it refuses). */
const encode = (value: string) => value.replace(/[^A-Za-z0-9\-_.!~*'()]/g, percent);

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3000 }) },
);
const pathId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_IDS) },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 3_000_000_000 }).map(String) },
  // Real ids, read when generated (they exist once beforeAll ran): the caller's own and another member's.
  { weight: 1, arbitrary: fc.nat().map((n) => String(ownIds[n % ownIds.length])) },
  { weight: 1, arbitrary: fc.nat().map((n) => String(bystanderContacts[n % bystanderContacts.length])) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

interface Target {
  path: string;
  version: 'v3' | 'v4' | 'other';
}
const target: fc.Arbitrary<Target> = fc.oneof(
  fc.constant<Target>({ path: '/v4/contacts', version: 'v4' }),
  pathId.map<Target>((id) => ({ path: `/v4/contacts/${segment(id)}`, version: 'v4' })),
  pathId.map<Target>((id) => ({ path: `/v4/contacts/${segment(id)}/image`, version: 'v4' })),
  fc.constant<Target>({ path: '/v4/groups', version: 'v4' }),
  pathId.map<Target>((id) => ({ path: `/v4/groups/${segment(id)}/guests`, version: 'v4' })),
  fc.constant<Target>({ path: '/v4/business-categories', version: 'v4' }),
  fc.constant<Target>({ path: '/v3/contacts', version: 'v3' }),
  pathId.map<Target>((id) => ({ path: `/v3/contacts/${segment(id)}`, version: 'v3' })),
  fc
    .tuple(pathId, pathId)
    .map<Target>(([offset, limit]) => ({ path: `/v3/contacts/${segment(offset)}/${segment(limit)}`, version: 'v3' })),
  fc.string({ maxLength: 30 }).map<Target>((rest) => ({ path: `/v4/${segment(rest)}`, version: 'v4' })),
  fc.string({ maxLength: 30 }).map<Target>((rest) => ({ path: `/v3/${segment(rest)}`, version: 'v3' })),
);

const queryValue = fc.oneof(
  hostileString,
  fc.constantFrom('1', '0', '1000', '1001', '-1', 'eyJhZnRlcl9pZCI6MX0', '2026-01-01'),
);
const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 4,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom('limit', 'cursor', 'q', 'group_id', 'updated_since', 'limit[]', '__proto__'),
            fc.string({ maxLength: 8 }),
          ),
          queryValue,
          fc.boolean(),
        ),
        { maxLength: 5 },
      )
      .map(
        (pairs) =>
          `?${pairs.map(([key, value, raw]) => `${raw ? latin1(key).replace(/[\s#]/g, '+') : encode(key)}=${raw ? latin1(value).replace(/[\s#]/g, '+') : encode(value)}`).join('&')}`,
      ),
  },
  // Huge query strings: within Node's header limit (the API must answer in its shape), and beyond it.
  { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 14_000 }).map((n) => `?q=${'%41'.repeat(Math.floor(n / 3))}`) },
  { weight: 1, arbitrary: fc.integer({ min: 17_000, max: 40_000 }).map((n) => `?q=${'a'.repeat(n)}`) },
);

const authorization = fc.oneof(
  { weight: 12, arbitrary: fc.constant('valid') },
  { weight: 2, arbitrary: fc.constant('reader') },
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc.constant(''),
      fc.constant('Bearer'),
      fc.constant('Bearer '),
      fc.constant('Basic dXNlcjpwYXNz'),
      fc.string({ maxLength: 60 }).map((value) => latin1(`Bearer ${value}`)),
      fc.constantFrom(...HOSTILE_STRINGS).map((value) => latin1(`Bearer ${value}`).slice(0, 4000)),
      fc.integer({ min: 1_000, max: 8_000 }).map((n) => `Bearer ${'x'.repeat(n)}`),
      fc.constant('Bearer \u00ff\u00fe\u00e9'),
      // DPoP scheme and self-identifying personal tokens (sender-constraint.ts).
      fc.string({ maxLength: 60 }).map((value) => latin1(`DPoP ${value}`)),
      fc.constantFrom('DPoP', 'DPoP ', 'dpop abc', `Bearer mct_${'A'.repeat(46)}`, `DPoP mct_${'A'.repeat(46)}`),
      fc.integer({ min: 1_000, max: 8_000 }).map((n) => `DPoP ${'x'.repeat(n)}`),
    ),
  },
);

const contentType = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/vnd.api+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=XyZ',
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'text/plain',
    'application/xml',
    '*/*',
    'garbage',
    'application/json; charset=nope',
    'multipart/mixed; boundary=XyZ',
  ),
);

const contactish = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'name',
      'email',
      'company_name',
      'company',
      'personal_number',
      'website',
      'address',
      'street',
      'zipcode',
      'group_id',
      'business_category_id',
      'referrer_id',
      'join_date',
      'image',
      '_method',
      'contact_ids',
      '__proto__',
    ),
    fc.string({ maxLength: 10 }),
  ),
  fc.oneof(
    hostileString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.integer(), hostileString), { maxLength: 5 }),
    fc.constantFrom('PATCH', 'DELETE', 'patch'),
  ),
  { maxKeys: 6 },
);

function multipartBody(boundary: string, fields: [string, string][], file?: { bytes: Buffer; name: string }): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${latin1(name).replace(/"/g, '')}"\r\n\r\n${value}\r\n`,
        'latin1',
      ),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

interface Body {
  bytes: Buffer | undefined;
  /** The content type that goes with the body, unless the generated one is used. */
  type?: string;
  /** The Content-Encoding that goes with it (sent with its type). */
  encoding?: string;
}
const body: fc.Arbitrary<Body> = fc.oneof(
  fc.constant<Body>({ bytes: undefined }),
  fc.constant<Body>({ bytes: Buffer.alloc(0) }),
  fc
    .jsonValue({ maxDepth: 3 })
    .map<Body>((value) => ({ bytes: Buffer.from(JSON.stringify(value) ?? 'null'), type: 'application/json' })),
  contactish.map<Body>((value) => ({ bytes: Buffer.from(JSON.stringify(value)), type: 'application/json' })),
  contactish.map<Body>((value) => ({
    bytes: Buffer.from(JSON.stringify({ name: 'Fuzzed', ...value })),
    type: 'application/json',
  })),
  contactish.map<Body>((value) => ({
    bytes: Buffer.from(new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)])).toString()),
    type: 'application/x-www-form-urlencoded',
  })),
  fc.uint8Array({ maxLength: 300 }).map<Body>((bytes) => ({ bytes: Buffer.from(bytes) })),
  // Invalid UTF-8 inside otherwise well-formed JSON and forms.
  fc.constantFrom<Body>(
    {
      bytes: Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]),
      type: 'application/json',
    },
    {
      bytes: Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x3d, 0xc3, 0x28, 0xff, 0xfe]),
      type: 'application/x-www-form-urlencoded',
    },
    { bytes: Buffer.from('name=%ff%fe%c3%28&email=%E0%A4%A'), type: 'application/x-www-form-urlencoded' },
    { bytes: Buffer.from('{"name": "x"'), type: 'application/json' },
    { bytes: Buffer.from('{"name": "\\ud800"}'), type: 'application/json' },
    { bytes: Buffer.from('{"__proto__": {"admin": true}, "name": "proto"}'), type: 'application/json' },
    { bytes: Buffer.from('[1,2,3]'), type: 'application/json' },
    { bytes: Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}`), type: 'application/json' },
    { bytes: Buffer.from('{"contact_ids": [1e400, -1, 1.5, "1"]}'), type: 'application/json' },
    { bytes: Buffer.from('{"contact_ids": []}'), type: 'application/json' },
    { bytes: Buffer.from('{"group_id": 99999999999999999999}'), type: 'application/json' },
  ),
  // Content-Encoding: a real one, bodies that are not what their coding says, codings not read.
  fc.constantFrom<Body>(
    { bytes: gzipSync('{"name": "Gzipped"}'), type: 'application/json', encoding: 'gzip' },
    { bytes: Buffer.from('{"name": "Not gzip"}'), type: 'application/json', encoding: 'gzip' },
    { bytes: Buffer.from('name=Not+deflate'), type: 'application/x-www-form-urlencoded', encoding: 'deflate' },
    { bytes: Buffer.from('{"name": "Not br"}'), type: 'application/json', encoding: 'br' },
    { bytes: gzipSync('{"name": "Cut"}').subarray(0, 12), type: 'application/json', encoding: 'gzip' },
    { bytes: Buffer.from('{"name": "x"}'), type: 'application/json', encoding: 'compress' },
    { bytes: Buffer.from('{"name": "x"}'), type: 'application/json', encoding: 'gzip, br' },
  ),
  // Multipart: well-formed with hostile fields and junk or real images, and broken in many ways.
  fc
    .tuple(
      fc.array(
        fc.tuple(
          fc.string({ maxLength: 10 }),
          hostileString.map((value) => value.slice(0, 2000)),
        ),
        { maxLength: 4 },
      ),
      fc.option(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
          fc.constant(PNG),
          fc.constant(JPEG),
        ),
      ),
      fc.constantFrom('whole', 'truncated', 'no-terminator', 'wrong-boundary'),
    )
    .map<Body>(([fields, file, shape]) => {
      const boundary = 'XyZ';
      let bytes = multipartBody(
        boundary,
        [['name', 'Fuzz'], ...fields],
        file ? { bytes: file, name: 'image' } : undefined,
      );
      if (shape === 'truncated') bytes = bytes.subarray(0, Math.floor(bytes.length / 2));
      if (shape === 'no-terminator') bytes = bytes.subarray(0, bytes.length - 8);
      const type =
        shape === 'wrong-boundary'
          ? 'multipart/form-data; boundary=other'
          : `multipart/form-data; boundary=${boundary}`;
      return { bytes, type };
    }),
  // Too many files, parts and fields.
  fc.constantFrom<Body>(
    {
      bytes: multipartBody(
        'XyZ',
        Array.from({ length: 150 }, (_, i) => [`f${i}`, 'v'] as [string, string]),
      ),
      type: 'multipart/form-data; boundary=XyZ',
    },
    {
      bytes: Buffer.concat([
        multipartBody('XyZ', [['name', 'two images']], { bytes: PNG, name: 'image' }).subarray(0, -9),
        multipartBody('XyZ', [], { bytes: PNG, name: 'image' }),
      ]),
      type: 'multipart/form-data; boundary=XyZ',
    },
  ),
);

const method = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE') },
  { weight: 2, arbitrary: fc.constantFrom('PATCH', 'PUT', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('PROPFIND', 'MKCOL', 'SEARCH') },
);

const extraHeaders = fc.record(
  {
    'if-match': fc.oneof(
      hostileString.map((value) => latin1(value).slice(0, 500)),
      fc.constant('*'),
      fc.constant('W/"x"'),
    ),
    'if-none-match': fc.constantFrom('*', '"abc"', ''),
    'x-http-method-override': fc.constantFrom('PATCH', 'DELETE', 'GET', 'garbage'),
    accept: fc.constantFrom('*/*', 'text/html', 'application/xml', '\u00ff'),
    'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 999.1.1.1', ''),
    'x-padding': fc
      .oneof(
        { weight: 6, arbitrary: fc.integer({ min: 1, max: 2_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 15_000 }) },
      )
      .map((n) => 'p'.repeat(n)),
    'transfer-encoding': fc.constant('chunked'),
    dpop: fc.oneof(
      fc.constantFrom('', 'a.b.c', 'eyJhbGciOiJub25lIiwidHlwIjoiZHBvcCtqd3QifQ.e30.', 'x'.repeat(9_000)),
      fc.constantFrom(...HOSTILE_STRINGS).map((value) => latin1(value).slice(0, 2000)),
    ),
  },
  { requiredKeys: [] },
);

interface Generated {
  request: RawRequest;
  version: Target['version'];
  /** Request line and headers exceed Node's limit: the HTTP layer answers 431 before the app. */
  oversized: boolean;
}
const generatedRequest: fc.Arbitrary<Generated> = fc
  .record({ target, query, method, authorization, contentType, body, extraHeaders, useBodyType: fc.boolean() })
  .map(({ target, query, method, authorization, contentType, body, extraHeaders, useBodyType }) => {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(extraHeaders))
      if (key !== 'transfer-encoding') headers[key] = value as string;
    if (authorization === 'valid') headers.authorization = `Bearer ${fuzzer.token}`;
    else if (authorization === 'reader') headers.authorization = `Bearer ${reader.token}`;
    else if (authorization !== '') headers.authorization = authorization;
    const type = useBodyType && body.type ? body.type : contentType;
    if (type !== undefined) headers['content-type'] = type;
    if (useBodyType && body.encoding) headers['content-encoding'] = body.encoding;
    const path = `${target.path}${query}`;
    const headerBytes =
      path.length + Object.entries(headers).reduce((sum, [k, v]) => sum + k.length + v.length + 4, 0) + 200;
    return {
      request: { method, path, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body.bytes },
      version: target.version,
      oversized: headerBytes > HEADER_LIMIT - 512,
    };
  });

async function contactsChecksum(): Promise<string> {
  const row = await stack.db
    .raw(
      `select (select count(*) from contacts) as n,
              (select md5(coalesce(string_agg(c::text, '|' order by c.id), '')) from contacts c) as contacts,
              (select md5(coalesce(string_agg(i.contact_id || ':' || i.sha256, '|' order by i.contact_id), '')) from contact_images i) as images`,
    )
    .then((result: { rows: Array<{ n: number; contacts: string; images: string }> }) => result.rows[0]);
  return `${row?.n}:${row?.contacts}:${row?.images}`;
}

async function bystanderChecksum(): Promise<string> {
  const rows = await stack.db('contacts').whereIn('id', bystanderContacts).orderBy('id');
  return JSON.stringify(rows);
}

const statuses = new Map<number, number>();
const failures: string[] = [];
let refusedByHttpParser = 0;

function checkAnswer(generated: Generated, response: RawResponse): void {
  const describeIt = () =>
    `${generated.request.method} ${generated.request.path.slice(0, 200)} (${generated.request.headers['content-type'] ?? '-'}) → ${response.status} ${response.text.slice(0, 300)}`;
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  if (response.status >= 500) {
    failures.push(`5xx: ${describeIt()}`);
    return;
  }
  if (response.status < 400 || generated.request.method === 'HEAD') return;
  // Node's HTTP parser refuses some request lines (oversized, or bytes it does not allow in a URL)
  // before the app sees them: an empty 400/431 and a closed connection.
  if (
    (response.status === 431 || response.status === 400) &&
    response.text === '' &&
    response.headers.connection === 'close' &&
    response.headers['content-type'] === undefined
  ) {
    refusedByHttpParser += 1;
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.text);
  } catch {
    failures.push(`not JSON: ${describeIt()}`);
    return;
  }
  if (response.text.includes('    at ') || /node_modules|\.ts:\d+/.test(response.text))
    failures.push(`stack trace: ${describeIt()}`);
  if (generated.version === 'v3') {
    const message = (parsed as { message?: unknown }).message;
    if (typeof message !== 'string' || message === '') failures.push(`not Laravel's {"message"}: ${describeIt()}`);
  } else {
    const error = (parsed as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof error?.code !== 'string' || typeof error.message !== 'string')
      failures.push(`not {"error":{"code","message"}}: ${describeIt()}`);
  }
}

describe(`fuzzing the contacts API (${RUNS} generated requests)`, () => {
  it('never answers 5xx, always answers errors in the documented shape, and rejected requests change nothing', async () => {
    const bystanderBefore = await bystanderChecksum();
    let sent = 0;
    let unchangedChecks = 0;
    const started = Date.now();
    const result = await fc.check(
      fc.asyncProperty(fc.array(generatedRequest, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const before = await contactsChecksum();
        const responses = await Promise.all(
          batch.map((generated) =>
            send(stack.apiUrl, generated.request, agent).catch((error: Error) => {
              // The HTTP layer may close the connection on a request line it refuses.
              if (/socket hang up|ECONNRESET|EPIPE/.test(error.message)) {
                refusedByHttpParser += 1;
                return undefined;
              }
              throw new Error(`${generated.request.method} ${generated.request.path.slice(0, 120)}: ${error.message}`);
            }),
          ),
        );
        sent += batch.length;
        let anyWriteSucceeded = false;
        batch.forEach((generated, index) => {
          const response = responses[index];
          if (!response) return;
          checkAnswer(generated, response);
          if (response.status < 300 && !['GET', 'HEAD', 'OPTIONS'].includes(generated.request.method))
            anyWriteSucceeded = true;
        });
        if (!anyWriteSucceeded) {
          unchangedChecks += 1;
          expect(await contactsChecksum()).toBe(before);
        }
        expect(failures.slice(0, 5)).toEqual([]);
      }),
      { numRuns: Math.ceil(RUNS / BATCH), endOnFailure: true, ...fuzzSeed() },
    );
    // The counterexample (ten whole requests, some of 40 kB) would drown the report: show the findings.
    if (result.failed) {
      throw new Error(
        `fuzzing failed (seed ${result.seed}): ${failures.slice(0, 10).join('\n') || String(result.errorInstance).slice(0, 2000)}`,
      );
    }
    const seconds = (Date.now() - started) / 1000;
    expect(await bystanderChecksum()).toBe(bystanderBefore);
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    console.log(
      `contacts-api fuzz: ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s); ` +
        `${unchangedChecks} batches without a successful write checked unchanged; ` +
        `${refusedByHttpParser} refused by Node's HTTP parser; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
    );
  }, 300_000);

  it('answers 400 to a multipart body that ends inside the image, and keeps serving (it used to crash the process)', async () => {
    const whole = multipartBody('XyZ', [['name', 'Cut']], {
      bytes: Buffer.concat([PNG, Buffer.alloc(4096, 1)]),
      name: 'image',
    });
    for (const path of ['/v4/contacts', '/v3/contacts']) {
      const answer = await send(
        stack.apiUrl,
        {
          method: 'POST',
          path,
          headers: { authorization: `Bearer ${fuzzer.token}`, 'content-type': 'multipart/form-data; boundary=XyZ' },
          body: whole.subarray(0, whole.length - 100),
        },
        agent,
      );
      expect(answer.status).toBe(400);
    }
    expect((await fuzzer.json('/v4/contacts?limit=1')).status).toBe(200);
  });

  it('refuses oversized bodies with 413 in the documented shape, before reading them all', async () => {
    const big = Buffer.alloc(12 * 1024 * 1024 + 10, 0x41);
    const image = multipartBody('XyZ', [['name', 'Big']], { bytes: Buffer.concat([PNG, big]), name: 'image' });
    const before = await contactsChecksum();
    for (const [path, version] of [
      ['/v4/contacts', 'v4'],
      [`/v4/contacts/${ownIds[2]}`, 'v4'],
      ['/v3/contacts', 'v3'],
      [`/v3/contacts/${ownIds[2]}`, 'v3'],
    ] as const) {
      const multipartAnswer = await send(
        stack.apiUrl,
        {
          method: 'POST',
          path,
          headers: {
            authorization: `Bearer ${fuzzer.token}`,
            'content-type': 'multipart/form-data; boundary=XyZ',
          },
          body:
            version === 'v3' && path !== '/v3/contacts'
              ? Buffer.from(
                  image
                    .toString('latin1')
                    .replace('name="name"', 'name="_method"')
                    .replace('\r\n\r\nBig', '\r\n\r\nPATCH'),
                  'latin1',
                )
              : image,
        },
        agent,
      );
      expect(multipartAnswer.status, `${path} multipart`).toBe(413);
      const json = await send(
        stack.apiUrl,
        {
          method: 'POST',
          path,
          headers: { authorization: `Bearer ${fuzzer.token}`, 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) })),
        },
        agent,
      );
      expect(json.status, `${path} json`).toBe(413);
      for (const answer of [multipartAnswer, json]) {
        const parsed = JSON.parse(answer.text);
        if (version === 'v3') expect(parsed).toEqual({ message: expect.any(String) });
        else expect(parsed).toEqual({ error: { code: 'payload_too_large', message: expect.any(String) } });
      }
    }
    expect(await contactsChecksum()).toBe(before);
  });
});
