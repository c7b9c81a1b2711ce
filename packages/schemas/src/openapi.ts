import { z } from 'zod';
import { contactCreateV4, contactUpdateV4 } from './contact-input';
import { contactCreateV3, contactUpdateV3 } from './contact-input-v3';
import { contactV3, contactV3WithOwner } from './contact-v3';
import { contactV4, contactV4WithEtag } from './contact-v4';
import { deleteContactsResultV4, deleteContactsV4 } from './delete-contacts';
import { errorEnvelope } from './errors';
import { messageV3, validationErrorV3 } from './errors-v3';
import { contactListV4Meta } from './list-query';
import { businessCategoryV4, groupV4 } from './lookups';
import { OAUTH_TAG, oauthPaths, oauthSecuritySchemes } from './oauth-endpoints';

/**
 * The frame of the contacts API's OpenAPI 3.1 document: info, servers, tags, security schemes,
 * the shared component schemas, and the static OAuth endpoints. Its contacts `paths` are not
 * written here: the API generates them from its routes' declared contracts and passes them in.
 * Request bodies are described by what clients send (zod "input" side), responses by what the
 * API returns ("output" side).
 */
type JsonObject = Record<string, unknown>;
type Side = 'input' | 'output';

/** The operation tags, in the order the docs page shows them. */
export const V4_TAG = { name: 'Contacts v4', description: 'The current API.' };
export const V3_TAG = {
  name: 'v3 (deprecated)',
  description: 'The original service’s API, kept until its sunset date; every answer carries Deprecation and Sunset.',
};

/** The named shared schemas: where a route's schema is (or contains) one of these, the document refers to it. */
const COMPONENTS: Record<Side, Record<string, z.ZodType>> = {
  input: {
    ContactInput: contactCreateV4,
    ContactUpdate: contactUpdateV4,
    DeleteContacts: deleteContactsV4,
    ContactInputV3: contactCreateV3,
    ContactUpdateV3: contactUpdateV3,
  },
  output: {
    Contact: contactV4,
    ContactWithEtag: contactV4WithEtag,
    Error: errorEnvelope,
    Group: groupV4,
    BusinessCategory: businessCategoryV4,
    ContactListMeta: contactListV4Meta,
    DeleteContactsResult: deleteContactsResultV4,
    ContactV3: contactV3,
    ContactV3WithOwner: contactV3WithOwner,
    MessageV3: messageV3,
    ValidationErrorV3: validationErrorV3,
  },
};

const COMPONENT = (id: string) => `#/components/schemas/${id}`;
/** The name of the schema converted on its own, beside the components it may refer to. */
const SUBJECT = '__subject';

function convert(side: Side, extra?: z.ZodType): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS[side])) registry.add(schema, { id });
  if (extra) registry.add(extra, { id: SUBJECT });
  const { schemas } = z.toJSONSchema(registry, { io: side, uri: COMPONENT, target: 'draft-2020-12' });
  const result: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonObject;
    result[id] = rest;
  }
  return result;
}

/**
 * A zod schema as an OpenAPI schema object: a reference when it is a shared component, else the
 * schema inline, referring to the components it contains.
 */
export function openApiSchema(schema: z.ZodType, side: Side): JsonObject {
  const component = Object.entries(COMPONENTS[side]).find(([, candidate]) => candidate === schema)?.[0];
  if (component) return { $ref: COMPONENT(component) };
  return convert(side, schema)[SUBJECT] as JsonObject;
}

export function buildOpenApiDocument(options: {
  serverUrl: string;
  /**
   * The authorization server's public URL (AUTH_URL), when not the API's own: its endpoints, in
   * the security schemes and the /oauth/* paths, are named there.
   */
  authUrl?: string;
  paths: Record<string, JsonObject>;
  /** The algorithms a DPoP proof may use (the service's one list, @contacts/config DPOP_SIGNING_ALGORITHMS). */
  dpopAlgorithms: readonly string[];
}): JsonObject {
  const { [SUBJECT]: _none, ...inputs } = convert('input');
  const authUrl = options.authUrl ?? options.serverUrl;
  const onAuthServer = (item: JsonObject): JsonObject =>
    authUrl === options.serverUrl ? item : { servers: [{ url: authUrl }], ...item };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Member contacts API',
      version: '4.0.0',
      description:
        "Every member's private address book. Send `Authorization: Bearer <token>` (an OAuth access token or a personal access token). Reads need the `contacts:read` scope, writes `contacts:write` (or `*`). A DPoP-bound token (`token_type` DPoP, RFC 9449) is sent as `Authorization: DPoP <token>` with a fresh `DPoP` proof header for each request (`htm`, `htu` = the public URL of the request without query, `iat` within 60 s, unique `jti`, `ath`; algorithms " +
        options.dpopAlgorithms.join(', ') +
        '); it is refused as Bearer. Errors: 401 with `WWW-Authenticate: DPoP error="invalid_token"` or `error="invalid_dpop_proof"` and `algs`. Request bodies are UTF-8, and may be sent with `Content-Encoding: gzip`, `deflate` or `br`. A method a path does not answer gets `405` with an `Allow` header naming those it does.',
    },
    servers: [{ url: options.serverUrl }],
    tags: [V4_TAG, V3_TAG, OAUTH_TAG],
    security: [{ oauth2: [] }, { bearer: [] }, { dpop: [] }],
    components: {
      securitySchemes: oauthSecuritySchemes(authUrl),
      schemas: { ...inputs, ...convert('output') },
    },
    paths: {
      ...options.paths,
      ...Object.fromEntries(Object.entries(oauthPaths()).map(([path, item]) => [path, onAuthServer(item)])),
    },
  };
}
