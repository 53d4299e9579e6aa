/**
 * The one bundle of the client: dist/vexdesk.mjs is the npm `bin` and the GitHub Action's
 * `main` (action.yml). `npm run build:cli` writes it; test/integration/cli-dist.test.ts fails
 * when the committed file differs from a fresh build of the source (as actions/typescript-action's
 * check-dist does), so the Action never runs code the repository does not show.
 */
import { build, type BuildOptions } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BUNDLE = 'dist/vexdesk.mjs';
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const bundleOptions: BuildOptions = {
  absWorkingDir: ROOT,
  entryPoints: ['bin/vexdesk.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  // Dependencies written as CommonJS call require() for Node's built-ins; an ES module has none.
  banner: { js: "import { createRequire as __vexdeskCreateRequire } from 'node:module';\nconst require = __vexdeskCreateRequire(import.meta.url);" },
  legalComments: 'eof',
  logLevel: 'warning',
  charset: 'utf8',
  // The SARIF log names the tool's version (shared/client/commands/sarif.ts).
  define: { VEXDESK_VERSION: JSON.stringify(version) },
};

/** The bundle's text as a fresh build makes it. */
export async function buildBundle(): Promise<string> {
  const result = await build({ ...bundleOptions, write: false, outfile: BUNDLE });
  const file = result.outputFiles?.[0];
  if (!file) throw new Error('esbuild wrote no bundle');
  return file.text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build({ ...bundleOptions, outfile: BUNDLE });
  console.log(`wrote ${BUNDLE}`);
}
