import { describe, expect, it } from 'vitest';
import { syncOpenApiPaths } from '../src/index';

describe('syncOpenApiPaths', () => {
  it('documents the four sync endpoints with their error answers', () => {
    const paths = syncOpenApiPaths() as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    expect(Object.keys(paths)).toEqual([
      '/v4/contacts/changes',
      '/v4/contacts/batch',
      '/v4/contacts/export',
      '/v4/contacts/import',
    ]);
    expect(Object.keys(paths['/v4/contacts/changes']!.get!.responses)).toEqual(['200', '401', '403', '410', '422']);
    expect(Object.keys(paths['/v4/contacts/batch']!.post!.responses)).toContain('412');
    expect(Object.keys(paths['/v4/contacts/import']!.post!.responses)).toContain('413');
    expect(JSON.stringify(paths)).not.toContain('"$schema"');
  });
});
