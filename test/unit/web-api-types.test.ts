/**
 * The console's API types (web/src/api/schema.d.ts) are generated from docs/openapi.json by
 * openapi-typescript and committed; this fails when the two drift apart. To refresh:
 * npx openapi-typescript docs/openapi.json --default-non-nullable false -o web/src/api/schema.d.ts
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';

const root = join(import.meta.dirname, '../..');

describe('the console API types', () => {
  it('match docs/openapi.json', async () => {
    const spec = JSON.parse(readFileSync(join(root, 'docs/openapi.json'), 'utf8')) as Parameters<typeof openapiTS>[0];
    const generated = astToString(await openapiTS(spec, { defaultNonNullable: false }));
    const committed = readFileSync(join(root, 'web/src/api/schema.d.ts'), 'utf8');
    // The CLI adds a header comment; compare the declarations.
    expect(committed.slice(committed.indexOf('export '))).toBe(generated.slice(generated.indexOf('export ')));
  });
});
