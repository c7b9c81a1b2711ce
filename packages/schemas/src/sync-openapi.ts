import { z } from 'zod';
import { contactBatchOperationV4, contactBatchResultV4, MAX_BATCH_OPERATIONS } from './contact-batch';
import { contactChangesPageV4, contactChangesQueryV4 } from './contact-changes';

/**
 * The OpenAPI 3.1 path items of the sync endpoints (change feed, batch writes, vCard export and
 * import), ready to be merged into the generated document's `paths`. Errors refer to the
 * document's `Error` component; every other schema is generated inline from the zod schemas
 * that validate the requests.
 */
type JsonObject = Record<string, unknown>;

const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonObject => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonObject;
  return rest;
};
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
const AUTH_ERRORS = {
  '401': error('Missing, invalid, expired or revoked token.'),
  '403': error('The token lacks the scope.'),
};

export function syncOpenApiPaths(): Record<string, JsonObject> {
  const changesQuery = schemaOf(contactChangesQueryV4, 'input') as { properties: Record<string, JsonObject> };
  return {
    '/v4/contacts/changes': {
      get: {
        operationId: 'listContactChanges',
        summary: 'A full listing (no sync_token) or the changes since a sync token, for keeping a copy in sync',
        description:
          'Page with `limit` and `cursor` (meta.next_cursor) until next_cursor is null; the last page carries `meta.sync_token`. Apply each page in order: upsert `data`, remove the ids in `deleted`. Tokens live SYNC_TOKEN_TTL seconds (30 days by default).',
        parameters: Object.entries(changesQuery.properties).map(([name, schema]) => {
          const { description, ...rest } = schema;
          return { name, in: 'query', required: false, schema: rest, ...(description ? { description } : {}) };
        }),
        responses: {
          '200': {
            description: 'One page.',
            content: { 'application/json': { schema: schemaOf(contactChangesPageV4, 'output') } },
          },
          '410': error('The sync token has expired (`sync_token_expired`): start again with a full sync.'),
          '422': error('Malformed limit or cursor, or a sync token that is malformed or issued to another member.'),
          ...AUTH_ERRORS,
        },
      },
    },
    '/v4/contacts/batch': {
      post: {
        operationId: 'batchContacts',
        summary: `Up to ${MAX_BATCH_OPERATIONS} creates, updates and deletes, all or nothing`,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['operations'],
                properties: {
                  operations: {
                    type: 'array',
                    minItems: 1,
                    maxItems: MAX_BATCH_OPERATIONS,
                    items: schemaOf(contactBatchOperationV4, 'input'),
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'One result per operation, in order.',
            content: { 'application/json': { schema: schemaOf(contactBatchResultV4, 'output') } },
          },
          '412': error("An update's if_match no longer matches the contact; nothing was written."),
          '422': error(
            'An invalid operation; `fields` keys name it, e.g. `operations[3].contact.email`. Nothing was written.',
          ),
          ...AUTH_ERRORS,
        },
      },
    },
    '/v4/contacts/export': {
      get: {
        operationId: 'exportContacts',
        summary: "The caller's contacts as vCard 4.0 (RFC 6350), streamed",
        responses: {
          '200': { description: 'One vCard per contact.', content: { 'text/vcard': { schema: { type: 'string' } } } },
          ...AUTH_ERRORS,
        },
      },
    },
    '/v4/contacts/import': {
      post: {
        operationId: 'importContacts',
        summary: 'Creates contacts from vCard 3.0 or 4.0, in one transaction (at most 5 MiB)',
        requestBody: {
          required: true,
          content: {
            'text/vcard': { schema: { type: 'string' } },
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: { file: { type: 'string', contentMediaType: 'text/vcard' } },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'How many contacts were created, and which cards (counted from 0) were skipped, and why.',
            content: {
              'application/json': {
                schema: schemaOf(
                  z.object({
                    data: z.object({
                      created: z.int(),
                      skipped: z.array(z.object({ index: z.int(), reason: z.string() })),
                    }),
                  }),
                  'output',
                ),
              },
            },
          },
          '413': error('The body is larger than 5 MiB.'),
          '415': error('Neither text/vcard nor multipart/form-data.'),
          '422': error('The body holds no vCard, or the multipart form has no `file`.'),
          ...AUTH_ERRORS,
        },
      },
    },
  };
}
