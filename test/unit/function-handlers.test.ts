import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { functionCatalog } from '../../lib/function-catalog';
import { FUNCTION_HANDLERS } from '../../shared/local/function-handlers';

/** The functions API Gateway calls: one per endpoint group, and the authorizer. */
const apiFunctions = functionCatalog()
  .filter(({ role }) => role.kind === 'endpoint-group' || role.kind === 'authorizer')
  .map(({ name }) => name);

describe('the local API’s handler map', () => {
  it('names exactly the functions the stack puts behind the API', () => {
    expect(Object.keys(FUNCTION_HANDLERS).sort()).toEqual([...apiFunctions].sort());
  });

  it('imports each function’s own handler module, as the stack bundles it', () => {
    const source = readFileSync(new URL('../../shared/local/function-handlers.ts', import.meta.url), 'utf8');
    const imported = Object.fromEntries(
      [...source.matchAll(/^ {2}'?([\w-]+)'?: \(\) => import\('\.\.\/\.\.\/functions\/([\w-]+)\/handler'\),$/gm)].map(
        ([, name, folder]) => [name, folder],
      ),
    );
    expect(imported).toEqual(Object.fromEntries(apiFunctions.map((name) => [name, name])));
  });
});
