import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Node's flags that run a TypeScript entry (bin/admin.ts, bin/start.ts) with tsx's ES module loader (`tsx/esm`, as
 * package.json's `start` and `admin` do), from any working directory: one process, where the tsx CLI would start a
 * second Node to run the script.
 */
export const TSX_LOADER = [
  '--import',
  pathToFileURL(join(resolve(import.meta.dirname, '../..'), 'node_modules/tsx/dist/esm/index.mjs')).href,
];
