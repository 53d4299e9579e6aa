/**
 * Builds one Lambda bundle: `node --import tsx lib/build-function.ts <entry> <outDir>`.
 * lib/function-code.ts runs it in a child process, because CDK asks for an
 * asset synchronously while esbuild runs plugins only in its async API.
 */
import { buildFunctionBundle } from './bundling';

const [entry, outDir] = process.argv.slice(2);
if (entry === undefined || outDir === undefined) {
  console.error('usage: node --import tsx lib/build-function.ts <entry.ts> <output directory>');
  process.exitCode = 2;
} else {
  try {
    await buildFunctionBundle(entry, outDir);
  } catch (error) {
    // esbuild has already printed the located errors (logLevel 'warning').
    console.error(`Bundling ${entry} failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
