import { z } from 'zod';
import { contactCreateV4, contactUpdateV4 } from './contact-input';
import { contactCreateV3, contactUpdateV3 } from './contact-input-v3';
import { contactV3, contactV3WithOwner } from './contact-v3';
import { contactV4 } from './contact-v4';
import { deleteContactsResultV4, deleteContactsV4 } from './delete-contacts';
import { errorEnvelope } from './errors';
import { messageV3, validationErrorV3 } from './errors-v3';
import { MAX_DELETE_IDS, MAX_IMAGE_BYTES, MAX_LIST_LIMIT, megabytes } from './limits';
import { contactListV4Meta, listContactsQueryV4 } from './list-query';
import { businessCategoryV4, groupV4 } from './lookups';
import { OAUTH_TAG, oauthPaths, oauthSecuritySchemes, requiresScope } from './oauth-endpoints';
import { syncOpenApiPaths } from './sync-openapi';

/**
 * The OpenAPI 3.1 document of the contacts API, generated from the same zod schemas that
 * validate requests and shape responses, so documentation cannot drift from behaviour.
 * Request bodies are described by what clients send (zod "input" side), responses by what
 * the API returns ("output" side).
 */
type JsonObject = Record<string, unknown>;

const IMAGE_LIMIT = megabytes(MAX_IMAGE_BYTES);

/** The operation tags, in the order the docs page shows them. */
export const V4_TAG = { name: 'Contacts v4', description: 'The current API.' };
export const V3_TAG = {
  name: 'v3 (deprecated)',
  description: 'The original service’s API, kept until its sunset date; every answer carries Deprecation and Sunset.',
};

const COMPONENT = (id: string) => `#/components/schemas/${id}`;

function componentSchemas(io: 'input' | 'output', schemas: Record<string, z.ZodType>): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: generated } = z.toJSONSchema(registry, { io, uri: COMPONENT, target: 'draft-2020-12' });
  const result: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(generated)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonObject;
    result[id] = rest;
  }
  return result;
}

const ref = (id: string) => ({ $ref: COMPONENT(id) });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const errorResponse = (description: string) => ({ description, content: json(ref('Error')) });
const dataOf = (schema: unknown) => ({ type: 'object', required: ['data'], properties: { data: schema } });

const AUTH_ERRORS = {
  '401': {
    ...errorResponse('Missing, invalid, expired or revoked token.'),
    headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer error="invalid_token"' } },
  },
  '403': errorResponse('The token lacks the scope (error="insufficient_scope"), or the member may not do this.'),
  '503': errorResponse('The authorization server cannot be reached to check the token.'),
};
const ETAG_HEADER = { ETag: { schema: { type: 'string' }, description: 'Version of the contact, for If-Match.' } };
const ID_PARAMETER = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

function queryParameters(schema: z.ZodObject): JsonObject[] {
  const generated = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, JsonObject> };
  return Object.entries(generated.properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: 'query', required: false, schema: rest, ...(description ? { description } : {}) };
  });
}

export function buildOpenApiDocument(options: { serverUrl: string }): JsonObject {
  const contactWithImage = {
    allOf: [
      ref('ContactInput'),
      {
        type: 'object',
        properties: {
          image: {
            type: 'string',
            contentMediaType: 'application/octet-stream',
            description: `JPEG or PNG, at most ${IMAGE_LIMIT}.`,
          },
        },
      },
    ],
  };
  const updateWithImage = {
    allOf: [
      ref('ContactUpdate'),
      { type: 'object', properties: { image: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    ],
  };
  const writeBody = (schemaId: string, multipart: unknown) => ({
    required: true,
    content: {
      'application/json': { schema: ref(schemaId) },
      'application/x-www-form-urlencoded': { schema: ref(schemaId) },
      'multipart/form-data': { schema: multipart },
    },
  });
  const bodyErrors = {
    '400': errorResponse('Malformed JSON or multipart body.'),
    '413': errorResponse(`The image is larger than ${IMAGE_LIMIT}.`),
    '422': errorResponse('Validation failed; `fields` holds per-field messages.'),
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Member contacts API',
      version: '4.0.0',
      description:
        'Every member\'s private address book. Send `Authorization: Bearer <token>` (an OAuth access token or a personal access token). Reads need the `contacts:read` scope, writes `contacts:write` (or `*`). A DPoP-bound token (`token_type` DPoP, RFC 9449) is sent as `Authorization: DPoP <token>` with a fresh `DPoP` proof header for each request (`htm`, `htu` = the public URL of the request without query, `iat` within 60 s, unique `jti`, `ath`; algorithms ES256, ES384, ES512, Ed25519, EdDSA, PS256, RS256); it is refused as Bearer. Errors: 401 with `WWW-Authenticate: DPoP error="invalid_token"` or `error="invalid_dpop_proof"` and `algs`.',
    },
    servers: [{ url: options.serverUrl }],
    tags: [V4_TAG, V3_TAG, OAUTH_TAG],
    security: [{ oauth2: [] }, { bearer: [] }, { dpop: [] }],
    components: {
      securitySchemes: oauthSecuritySchemes(options.serverUrl),
      schemas: {
        ...componentSchemas('input', {
          ContactInput: contactCreateV4,
          ContactUpdate: contactUpdateV4,
          DeleteContacts: deleteContactsV4,
          ContactInputV3: contactCreateV3,
          ContactUpdateV3: contactUpdateV3,
        }),
        ...componentSchemas('output', {
          Contact: contactV4,
          Error: errorEnvelope,
          Group: groupV4,
          BusinessCategory: businessCategoryV4,
          ContactListMeta: contactListV4Meta,
          DeleteContactsResult: deleteContactsResultV4,
          ContactV3: contactV3,
          ContactV3WithOwner: contactV3WithOwner,
          MessageV3: messageV3,
          ValidationErrorV3: validationErrorV3,
        }),
      },
    },
    paths: {
      ...withScopesAndTags(v3Paths()),
      ...withScopesAndTags(syncOpenApiPaths()),
      ...withScopesAndTags({
        '/v4/contacts': {
          get: {
            operationId: 'listContacts',
            summary: "The caller's own contacts, one page at a time (keyset cursor)",
            parameters: queryParameters(listContactsQueryV4),
            responses: {
              '200': {
                description: 'One page.',
                content: json({
                  type: 'object',
                  required: ['data', 'meta'],
                  properties: { data: { type: 'array', items: ref('Contact') }, meta: ref('ContactListMeta') },
                }),
              },
              '422': errorResponse('Invalid query parameter.'),
              ...AUTH_ERRORS,
            },
          },
          post: {
            operationId: 'createContact',
            summary: 'Create a contact (multipart/form-data when an image is sent)',
            requestBody: writeBody('ContactInput', contactWithImage),
            responses: {
              '201': { description: 'Created.', headers: ETAG_HEADER, content: json(dataOf(ref('Contact'))) },
              ...bodyErrors,
              ...AUTH_ERRORS,
            },
          },
          delete: {
            operationId: 'deleteContacts',
            summary: "Delete some of the caller's own contacts (by ids and/or group)",
            requestBody: { required: true, content: json(ref('DeleteContacts')) },
            responses: {
              '200': { description: 'What was deleted.', content: json(ref('DeleteContactsResult')) },
              '400': errorResponse('Malformed JSON.'),
              '422': errorResponse(`Empty or invalid body, or more than ${MAX_DELETE_IDS} ids.`),
              ...AUTH_ERRORS,
            },
          },
        },
        '/v4/contacts/{id}': {
          parameters: [ID_PARAMETER],
          get: {
            operationId: 'getContact',
            summary: "One of the caller's contacts",
            responses: {
              '200': { description: 'The contact.', headers: ETAG_HEADER, content: json(dataOf(ref('Contact'))) },
              '404': errorResponse("No such contact among the caller's."),
              ...AUTH_ERRORS,
            },
          },
          post: {
            operationId: 'updateContact',
            summary: 'Change some fields (and/or the image) of a contact',
            parameters: [{ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } }],
            requestBody: writeBody('ContactUpdate', updateWithImage),
            responses: {
              '200': {
                description: 'The updated contact.',
                headers: ETAG_HEADER,
                content: json(dataOf(ref('Contact'))),
              },
              '404': errorResponse("No such contact among the caller's."),
              '412': errorResponse('If-Match does not match the current ETag.'),
              ...bodyErrors,
              ...AUTH_ERRORS,
            },
          },
        },
        '/v4/contacts/{id}/image': {
          parameters: [ID_PARAMETER],
          get: {
            operationId: 'getContactImage',
            summary: "The contact's image",
            responses: {
              '200': {
                description: 'The stored bytes.',
                headers: { ...ETAG_HEADER, 'Cache-Control': { schema: { type: 'string' } } },
                content: {
                  'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
                  'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
                },
              },
              '404': errorResponse('No such contact, or it has no image.'),
              ...AUTH_ERRORS,
            },
          },
        },
        '/v4/groups': {
          get: {
            operationId: 'listGroups',
            summary: 'The groups the caller belongs to',
            responses: {
              '200': { description: 'The groups.', content: json(dataOf({ type: 'array', items: ref('Group') })) },
              ...AUTH_ERRORS,
            },
          },
        },
        '/v4/groups/{id}/guests': {
          parameters: [ID_PARAMETER],
          get: {
            operationId: 'listGroupGuests',
            summary: 'Contacts linked to a group (its guests); for members of the group',
            responses: {
              '200': {
                description: 'The guests.',
                content: json(dataOf({ type: 'array', items: ref('Contact') })),
              },
              '404': errorResponse('No such group.'),
              ...AUTH_ERRORS,
            },
          },
        },
        '/v4/business-categories': {
          get: {
            operationId: 'listBusinessCategories',
            summary: 'Every business category',
            responses: {
              '200': {
                description: 'The categories.',
                content: json(dataOf({ type: 'array', items: ref('BusinessCategory') })),
              },
              ...AUTH_ERRORS,
            },
          },
        },
      }),
      ...oauthPaths(),
    },
  };
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/**
 * Gives each contacts operation its required scope (reads contacts:read, writes contacts:write,
 * as the routes demand; `*` always works) and, when it has none, the v4 tag.
 */
function withScopesAndTags(paths: Record<string, JsonObject>): Record<string, JsonObject> {
  const result: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(paths)) {
    const described: JsonObject = {};
    for (const [key, value] of Object.entries(item)) {
      if (!HTTP_METHODS.has(key)) {
        described[key] = value;
        continue;
      }
      const operation = value as JsonObject;
      described[key] = {
        tags: [V4_TAG.name],
        ...operation,
        security: requiresScope(key === 'get' ? 'contacts:read' : 'contacts:write'),
      };
    }
    result[path] = described;
  }
  return result;
}

/** The deprecated v3 operations: Laravel-style error bodies, and the deprecation headers on every answer. */
function v3Paths(): Record<string, JsonObject> {
  const headers = {
    Deprecation: {
      schema: { type: 'string' },
      description: 'RFC 9745: when v3 was deprecated, as `@` and Unix seconds.',
    },
    Sunset: { schema: { type: 'string' }, description: 'RFC 8594: when v3 stops answering (HTTP-date).' },
    Link: { schema: { type: 'string' }, description: '`rel="successor-version"`: the v4 documentation.' },
  };
  const answer = (description: string, schema: unknown) => ({ description, headers, content: json(schema) });
  const message = (description: string) => answer(description, ref('MessageV3'));
  const invalid = (description: string) => answer(description, ref('ValidationErrorV3'));
  const authErrors = {
    '401': {
      ...message('Missing, invalid, expired or revoked token: `{"message": "Unauthenticated."}`.'),
      headers: { ...headers, 'WWW-Authenticate': { schema: { type: 'string' }, description: 'A Bearer challenge.' } },
    },
    '403': message('The token lacks the scope, or the member may not do this.'),
    '503': message('The authorization server cannot be reached to check the token.'),
  };
  const body = (schemaId: string) => {
    const withImage = {
      allOf: [
        ref(schemaId),
        {
          type: 'object',
          properties: {
            image: {
              type: 'string',
              contentMediaType: 'application/octet-stream',
              description: `JPEG or PNG, at most ${IMAGE_LIMIT}.`,
            },
          },
        },
      ],
    };
    return {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: ref(schemaId) },
        'application/json': { schema: ref(schemaId) },
        'multipart/form-data': { schema: withImage },
      },
    };
  };
  const methodField = {
    type: 'object',
    required: ['_method'],
    properties: { _method: { type: 'string', enum: ['PATCH', 'DELETE'], description: 'The method meant (any case).' } },
  };
  const update = body('ContactUpdateV3');
  const spoofedBody = {
    required: true,
    content: Object.fromEntries(
      Object.entries(update.content).map(([type, { schema }]) => [type, { schema: { allOf: [methodField, schema] } }]),
    ),
  };
  const contacts = { type: 'array', items: ref('ContactV3') };
  const v3 = { deprecated: true, tags: [V3_TAG.name] };
  return {
    '/v3/contacts': {
      get: {
        ...v3,
        operationId: 'listContactsV3',
        summary: "Every one of the caller's contacts, in id order (v4: GET /v4/contacts)",
        responses: { '200': answer('The contacts, without an envelope.', contacts), ...authErrors },
      },
      post: {
        ...v3,
        operationId: 'upsertContactV3',
        summary: "Create a contact, or update the caller's contact with the same e-mail (v4: POST /v4/contacts)",
        requestBody: body('ContactInputV3'),
        responses: {
          '201': answer('Created.', ref('ContactV3WithOwner')),
          '200': answer('The contact with this e-mail (any case) was updated.', ref('ContactV3WithOwner')),
          '413': message(`The image is larger than ${IMAGE_LIMIT}.`),
          '422': invalid('Validation failed, or no such referrer, category or group.'),
          ...authErrors,
        },
      },
    },
    '/v3/contacts/{offset}/{limit}': {
      parameters: [
        { name: 'offset', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } },
        { name: 'limit', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT } },
      ],
      get: {
        ...v3,
        operationId: 'pageContactsV3',
        summary: 'One page of the same id ordering (v4: GET /v4/contacts?limit=…&cursor=…)',
        responses: {
          '200': answer('Up to `limit` contacts after the first `offset`.', contacts),
          '422': invalid('offset or limit is not an integer in range.'),
          ...authErrors,
        },
      },
    },
    '/v3/contacts/{id}': {
      parameters: [ID_PARAMETER],
      patch: {
        ...v3,
        operationId: 'updateContactV3',
        summary: 'Change some fields (and/or the image) of a contact (v4: POST /v4/contacts/{id})',
        requestBody: body('ContactUpdateV3'),
        responses: {
          '200': answer('The updated contact (no `user_id`).', ref('ContactV3')),
          '404': message("No such contact among the caller's."),
          '413': message(`The image is larger than ${IMAGE_LIMIT}.`),
          '422': invalid("Validation failed, e.g. the e-mail is held by another of the caller's contacts."),
          ...authErrors,
        },
      },
      post: {
        ...v3,
        operationId: 'spoofedMethodContactV3',
        summary: 'PATCH or DELETE sent as POST with `_method` (Laravel method spoofing: HTML forms, PHP uploads)',
        description:
          'The same operation as PATCH (`_method=PATCH`) or DELETE (`_method=DELETE`) on this path; the method may also be named in an `X-HTTP-Method-Override` header. Any other method is refused with 405.',
        parameters: [
          {
            name: 'X-HTTP-Method-Override',
            in: 'header',
            required: false,
            schema: { type: 'string', enum: ['PATCH', 'DELETE'] },
            description: 'Used when the body has no `_method`.',
          },
        ],
        requestBody: spoofedBody,
        responses: {
          '200': answer('As PATCH (the updated contact) or DELETE (`{"message": "success"}`).', {
            oneOf: [ref('ContactV3'), ref('MessageV3')],
          }),
          '404': message('The caller cannot see this contact.'),
          '405': message('`_method` is neither PATCH nor DELETE.'),
          '413': message(`The image is larger than ${IMAGE_LIMIT}.`),
          '422': invalid('Validation failed (as PATCH).'),
          ...authErrors,
          '403': message(
            'The token lacks the scope, or (DELETE) the caller sees the contact through a group but did not create it.',
          ),
        },
      },
      delete: {
        ...v3,
        operationId: 'deleteContactV3',
        summary: 'Delete a contact the caller created (v4: DELETE /v4/contacts with contact_ids)',
        responses: {
          '200': answer('Deleted: `{"message": "success"}`.', ref('MessageV3')),
          '404': message('The caller cannot see this contact.'),
          ...authErrors,
          '403': message(
            'The token lacks the scope, or the caller sees the contact through a group but did not create it.',
          ),
        },
      },
    },
  };
}
