/**
 * The one bundle of the client: dist/vexdesk.mjs is the npm `bin` and the GitHub Action's
 * `main` (action.yml). `npm run build:cli` writes it; test/integration/cli-dist.test.ts fails
 * when the committed file differs from a fresh build of the source (as actions/typescript-action's
 * check-dist does), so the Action never runs code the repository does not show.
 *
 * dist/ is also the publishable npm package of the CLI: `dist/package.json` is written from the
 * project's manifest (name, version, licence) beside the bundle, so `npm publish dist` (or
 * `npm pack dist`) ships exactly the committed, checked bundle with nothing to install.
 */
import { build, type BuildOptions } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BUNDLE = 'dist/vexdesk.mjs';
export const PACKAGE_MANIFEST = 'dist/package.json';
const project = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  license: string;
  description: string;
};
const { version } = project;

/** The CLI's own package: the bundle alone, no dependencies (all bundled), Node 24 like the bundle's target and the Action's runtime. */
export function cliPackageManifest(): string {
  const manifest = {
    name: '@vexdesk/cli',
    version,
    description:
      "Vexdesk's client for CI and people: upload an SBOM, wait for the scan, gate, SARIF, verify disclosures (HTTPS API only)",
    license: project.license,
    type: 'module',
    bin: { vexdesk: 'vexdesk.mjs' },
    files: ['vexdesk.mjs'],
    engines: { node: '>=24' },
    publishConfig: { access: 'public' },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export const bundleOptions: BuildOptions = {
  absWorkingDir: ROOT,
  entryPoints: ['bin/vexdesk.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  // Dependencies written as CommonJS call require() for Node's built-ins; an ES module has none.
  banner: {
    js: "import { createRequire as __vexdeskCreateRequire } from 'node:module';\nconst require = __vexdeskCreateRequire(import.meta.url);",
  },
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
  writeFileSync(new URL(`../../${PACKAGE_MANIFEST}`, import.meta.url), cliPackageManifest());
  console.log(`wrote ${BUNDLE} and ${PACKAGE_MANIFEST}`);
}
