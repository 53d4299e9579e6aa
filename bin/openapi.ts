/**
 * `npm run openapi`: writes the API reference, docs/openapi.json, from the
 * route table and its zod schemas (shared/service/http/openapi-document.ts).
 * `npm run openapi -- --check` only compares and exits 1 when the file is stale;
 * test/unit/openapi.test.ts makes the same comparison.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiJson } from '../shared/service/http/openapi-document';

const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
const generated = openApiJson();

if (process.argv.includes('--check')) {
  let committed: string | undefined;
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    committed = undefined;
  }
  if (committed === generated) {
    console.log(`${target} is up to date.`);
  } else {
    console.error(`${target} is stale: run \`npm run openapi\` and commit the result.`);
    process.exitCode = 1;
  }
} else {
  writeFileSync(target, generated);
  console.log(`Wrote ${target}`);
}
