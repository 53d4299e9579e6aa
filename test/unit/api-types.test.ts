/**
 * The API's TypeScript types (shared/api/schema.d.ts), which the console and the CLI import, are generated
 * from docs/openapi.json by `npm run openapi` and committed; this fails when the two drift apart.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiTypesOf } from '../../bin/openapi-types';

const root = join(import.meta.dirname, '../..');

describe('the API types', () => {
  it('are what `npm run openapi` generates from docs/openapi.json', async () => {
    const generated = await apiTypesOf(readFileSync(join(root, 'docs/openapi.json'), 'utf8'));
    expect(readFileSync(join(root, 'shared/api/schema.d.ts'), 'utf8')).toBe(generated);
  });
});
