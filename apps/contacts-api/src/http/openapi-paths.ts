import { openApiSchema, requiresScope, V3_TAG, V4_TAG } from '@contacts/schemas';
import type { Router } from '@koa/router';
import { z } from 'zod';
import { scopeRequiredBy } from '../auth/middleware';
import { ALLOW_HEADERS } from './allowed-methods';
import { SCOPE_CHALLENGE_HEADERS, UNAUTHORIZED_CHALLENGE_HEADERS } from './challenge';
import { contractOf, type ResponseContract, type RouteContract } from './guard';
import { isPerTokenRateLimit, isRateLimit } from './rate-limit';
import {
  bodyAnswers,
  RATE_LIMIT_STATE_HEADERS,
  RATE_LIMITED,
  REQUEST_ID_HEADERS,
  type SharedAnswer,
} from './shared-answers';

/**
 * The OpenAPI `paths` of the contacts API, generated from the registered routers: every route's
 * guard declares its parameters, bodies, answers, scope and names (http/guard.ts), and this module
 * only spells them the OpenAPI way. What every operation of an API version shares is added here:
 * the authentication middleware's errors, and for v3 the deprecation headers on every answer; so
 * are the answers of what stands in front of a handler (shared-answers.ts): reading a body, for
 * every operation with one, and the rate limit, for every route that holds it (its 429, and the
 * limit's state on the successes), and the request id every answer carries.
 */
type JsonObject = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: contracts of every parameter type
type AnyContract = RouteContract<any, any, any>;

export interface RegisteredRoute {
  method: string;
  /** The path in OpenAPI spelling (`:id` → `{id}`). */
  path: string;
  contract: AnyContract | undefined;
  /** Whether the route holds the rate limit (it may then answer 429). */
  rateLimited: boolean;
  /** Whether it holds the per-token limit, whose state its successes report (RateLimit-*). */
  reportsRateLimit: boolean;
}

/**
 * Every operation the routers answer (HEAD is implied by GET), with its guard's contract if it has
 * one. A route whose guard declares another scope than its access check requires is refused: the
 * document would promise one scope while the API checks another.
 */
export function registeredRoutes(routers: readonly Router[]): RegisteredRoute[] {
  const routes = routers.flatMap((router) =>
    router.stack.flatMap((layer) => {
      const contract = layer.stack.map(contractOf).find((found) => found !== undefined);
      const rateLimited = layer.stack.some(isRateLimit);
      const reportsRateLimit = layer.stack.some(isPerTokenRateLimit);
      const path = layer.path.toString().replace(/:(\w+)/g, '{$1}');
      const checked = layer.stack.map(scopeRequiredBy).find((scope) => scope !== undefined);
      if (contract && contract.scope !== checked) {
        throw new Error(
          `${layer.methods.join('/')} ${path} declares the scope ${contract.scope} but its access check requires ${checked ?? 'none'}.`,
        );
      }
      return layer.methods
        .filter((method) => method !== 'HEAD')
        .map((method) => ({ method: method.toLowerCase(), path, contract, rateLimited, reportsRateLimit }));
    }),
  );
  refuseShadowedRoutes(routes);
  return routes;
}

/**
 * A route registered after another of the same method whose `{param}` path also matches its own
 * (`GET /v4/contacts/count` after `GET /v4/contacts/{id}`) is never reached: the first one
 * answers, and fixedPathsFirst makes every such request a 405. Refused here, at start.
 */
function refuseShadowedRoutes(routes: readonly RegisteredRoute[]): void {
  routes.forEach((route, index) => {
    const earlier = routes
      .slice(0, index)
      .find((other) => other.method === route.method && other.path !== route.path && matches(other.path, route.path));
    if (earlier) {
      const method = route.method.toUpperCase();
      throw new Error(
        `${method} ${route.path} is registered after ${method} ${earlier.path}, which answers it first: register it before.`,
      );
    }
  });
}

/** Whether `pattern`'s route answers the requests for `path` (its parameters taken as any text). */
function matches(pattern: string, path: string): boolean {
  const segment = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const regex = pattern
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? '[^/]+' : segment(part)))
    .join('');
  return new RegExp(`^${regex}$`).test(path);
}

/** The document's paths for these routes (registeredRoutes()); a route without a guard is refused. */
export function openApiPaths(routes: readonly RegisteredRoute[]): Record<string, JsonObject> {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const { method, path, contract } = route;
    if (!contract) throw new Error(`${method.toUpperCase()} ${path} has no guard, so it cannot be documented.`);
    paths[path] ??= {};
    paths[path][method] = operationOf(path, contract, route);
  }
  return Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, withSharedParameters(item)]));
}

const json = (schema: JsonObject) => ({ 'application/json': { schema } });
const v4Error = (description: string): JsonObject => ({
  description,
  content: json({ $ref: '#/components/schemas/Error' }),
});

/** Every route's 503: nothing was done, and the same request can succeed when sent again. */
const SERVICE_UNAVAILABLE =
  'Nothing was done; send the request again after Retry-After seconds. The authorization server cannot be reached to check the token, the database cannot be reached, or a write collided with a concurrent change of the same contacts (a deadlock PostgreSQL undid); for a vCard import, also when this server already runs as many imports as it takes at once; for an image upload, also when it waited 20 s for the memory this server keeps for uploads (or the upload could not be kept on its disk).';
const RETRY_AFTER = {
  'Retry-After': { schema: { type: 'integer', minimum: 0 }, description: 'Seconds to wait before sending it again.' },
};

/** The headers every v3 answer carries (routes/v3/deprecation.ts). */
const DEPRECATION_HEADERS: Record<string, JsonObject> = {
  Deprecation: {
    schema: { type: 'string' },
    description: 'RFC 9745: when v3 was deprecated, as `@` and Unix seconds.',
  },
  Sunset: { schema: { type: 'string' }, description: 'RFC 8594: when v3 stops answering (HTTP-date).' },
  Link: {
    schema: { type: 'string' },
    description:
      '`rel="successor-version"` (RFC 5829): the v4 contacts; `rel="deprecation"` (RFC 9745): the API documentation.',
  },
};
const v3Message = (description: string): JsonObject => ({
  description,
  content: json({ $ref: '#/components/schemas/MessageV3' }),
});

/** One answer of the access check (auth/middleware.ts), which runs before every route of both versions. */
interface AccessCheckAnswer {
  v4: string;
  /** v3's description, where its body says more than v4's. */
  v3?: string;
  headers: Record<string, JsonObject>;
  /** Handlers give this status too (a database outage's 503): then past the rate limit. */
  alsoFromHandlers?: true;
}

/** What the access check answers before any route runs, with the same headers in v3 as in v4. */
const ACCESS_CHECK_ANSWERS: Record<string, AccessCheckAnswer> = {
  '401': {
    v4: 'Missing, invalid, expired or revoked token.',
    v3: 'Missing, invalid, expired or revoked token: `{"message": "Unauthenticated."}`.',
    headers: UNAUTHORIZED_CHALLENGE_HEADERS,
  },
  '403': {
    v4: 'The token lacks the scope (error="insufficient_scope"), or the member may not do this.',
    headers: SCOPE_CHALLENGE_HEADERS,
  },
  '503': { v4: SERVICE_UNAVAILABLE, headers: RETRY_AFTER, alsoFromHandlers: true },
};

/** The access check's answers in a version's error shape. */
function accessCheckAnswers(v3: boolean): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.entries(ACCESS_CHECK_ANSWERS).map(([status, answer]) => [
      status,
      { ...(v3 ? v3Message(answer.v3 ?? answer.v4) : v4Error(answer.v4)), headers: answer.headers },
    ]),
  );
}

/**
 * Whether a route's answer of `status` may have passed its rate limit, which stands after the
 * access check: any status the route or what stands before its handler gives (its 429 included),
 * or one the access check shares with handlers; not the access check's own 401 or scope 403.
 */
function isPastTheLimit(status: string, contract: AnyContract): boolean {
  const accessCheck = ACCESS_CHECK_ANSWERS[status];
  return !accessCheck || accessCheck.alsoFromHandlers === true || status in contract.responses;
}

function operationOf(
  path: string,
  contract: AnyContract,
  { rateLimited, reportsRateLimit }: Pick<RegisteredRoute, 'rateLimited' | 'reportsRateLimit'>,
): JsonObject {
  const v3 = path.startsWith('/v3/');
  const parameters = [
    ...parametersOf(contract.params, 'path'),
    ...(contract.headers ?? []),
    ...parametersOf(contract.query, 'query'),
  ];
  const requestBody = requestBodyOf(contract);
  const responses: Record<string, JsonObject> = {};
  for (const [status, response] of Object.entries(contract.responses)) responses[status] = responseOf(response);
  // The access check answers first; a route's own answer for the same status adds its cases to
  // it, and keeps the check's headers (a 403's scope challenge).
  for (const [status, response] of Object.entries(accessCheckAnswers(v3))) {
    const declared = responses[status];
    responses[status] = declared
      ? {
          ...declared,
          description: `${response.description} ${declared.description}`,
          headers: { ...(response.headers as JsonObject | undefined), ...(declared.headers as JsonObject | undefined) },
        }
      : response;
  }
  const shared: Array<[string, SharedAnswer]> = [
    ...Object.entries(requestBody ? bodyAnswers(Object.keys(requestBody.content)) : {}),
    ...(rateLimited ? [['429', RATE_LIMITED] as [string, SharedAnswer]] : []),
  ];
  for (const [status, answer] of shared) {
    const declared = responses[status];
    // A route's own answer for the status stays first (e.g. its image limit); the shared cases follow.
    responses[status] = declared
      ? {
          ...declared,
          description: `${declared.description} ${answer.description}`,
          headers: { ...(declared.headers as JsonObject | undefined), ...answer.headers },
        }
      : { ...(v3 ? v3Message : v4Error)(answer.description), ...(answer.headers ? { headers: answer.headers } : {}) };
  }
  for (const [status, response] of Object.entries(responses)) {
    const reportsLimit = reportsRateLimit && isPastTheLimit(status, contract);
    response.headers = {
      ...(v3 ? DEPRECATION_HEADERS : {}),
      ...(response.headers as JsonObject | undefined),
      ...(status === '405' ? ALLOW_HEADERS : {}),
      ...(reportsLimit ? RATE_LIMIT_STATE_HEADERS : {}),
      ...REQUEST_ID_HEADERS,
    };
  }
  return {
    tags: [v3 ? V3_TAG.name : V4_TAG.name],
    ...(v3 ? { deprecated: true } : {}),
    operationId: contract.operationId,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: requiresScope(contract.scope),
  };
}

function responseOf(response: ResponseContract): JsonObject {
  const content = response.schema ? json(openApiSchema(response.schema, 'output')) : response.content;
  return {
    description: response.description,
    ...(response.headers ? { headers: { ...response.headers } } : {}),
    ...(content ? { content } : {}),
  };
}

function requestBodyOf(contract: AnyContract): { required: true; content: JsonObject } | undefined {
  if (contract.requestBody) {
    const content = Object.fromEntries(
      Object.entries(contract.requestBody).map(([type, schema]) => [
        type,
        { schema: schema instanceof z.ZodType ? openApiSchema(schema, 'input') : schema },
      ]),
    );
    return { required: true, content };
  }
  if (!contract.body) return undefined;
  return { required: true, content: json(openApiSchema(contract.body, 'input')) };
}

/** A params or query object schema as OpenAPI parameters (the input side: what is sent). */
function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonObject[] {
  if (!schema) return [];
  const generated = z.toJSONSchema(schema, {
    io: 'input',
    // A path segment documented as the integer it stands for (its meta says so) keeps no string pattern.
    override: ({ jsonSchema }) => {
      if (jsonSchema.type === 'integer') delete jsonSchema.pattern;
    },
  }) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(generated.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || (generated.required ?? []).includes(name),
      schema: rest,
      ...(description ? { description } : {}),
    };
  });
}

/** Path parameters every operation of a path shares are stated once, on the path. */
function withSharedParameters(item: Record<string, JsonObject>): JsonObject {
  const operations = Object.values(item);
  const pathParameters = (operation: JsonObject) =>
    ((operation.parameters as JsonObject[] | undefined) ?? []).filter((parameter) => parameter.in === 'path');
  const first = JSON.stringify(pathParameters(operations[0] ?? {}));
  if (first === '[]' || operations.some((operation) => JSON.stringify(pathParameters(operation)) !== first)) {
    return item;
  }
  const result: JsonObject = { parameters: pathParameters(operations[0] ?? {}) };
  for (const [method, operation] of Object.entries(item)) {
    const rest = (operation.parameters as JsonObject[]).filter((parameter) => parameter.in !== 'path');
    const { parameters: _all, ...operationWithout } = operation;
    result[method] = rest.length > 0 ? { ...operationWithout, parameters: rest } : operationWithout;
  }
  return result;
}
