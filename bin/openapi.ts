/**
 * `npm run openapi`: writes the API reference, docs/openapi.json, from the route table and its zod
 * schemas (shared/service/http/openapi-document.ts), and the TypeScript types the console and the CLI take
 * from it, shared/api/schema.d.ts (openapi-typescript).
 * `npm run openapi -- --check` only compares and exits 1 when a file is stale;
 * test/unit/openapi.test.ts and test/unit/api-types.test.ts make the same comparisons.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiJson } from '../shared/service/http/openapi-document';
import { apiTypesOf } from './openapi-types';

const documentPath = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
const typesPath = fileURLToPath(new URL('../shared/api/schema.d.ts', import.meta.url));

const document = openApiJson();
const generated = [
  { path: documentPath, text: document },
  { path: typesPath, text: await apiTypesOf(document) },
];

if (process.argv.includes('--check')) {
  for (const { path, text } of generated) {
    let committed: string | undefined;
    try {
      committed = readFileSync(path, 'utf8');
    } catch {
      committed = undefined;
    }
    if (committed === text) {
      console.log(`${path} is up to date.`);
    } else {
      console.error(`${path} is stale: run \`npm run openapi\` and commit the result.`);
      process.exitCode = 1;
    }
  }
} else {
  for (const { path, text } of generated) {
    writeFileSync(path, text);
    console.log(`Wrote ${path}`);
  }
}
