/**
 * `npm run build:web`: builds the console (web/) with Vite into web/dist (index.html + hashed
 * assets), which `npm start` serves at `/` and the stack uploads to the console bucket.
 * `--if-stale` (npm's prestart) builds only when web/dist is missing or older than a source file,
 * so `npm install && npm start` on a fresh clone serves the console.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const webDir = resolve(fileURLToPath(import.meta.url), '../../web');
const builtIndex = join(webDir, 'dist/index.html');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Project modules outside web/ that the console imports (plain rule modules such as shared/service/identity/session-timeout-rules.ts). */
function importedProjectModules(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...importedProjectModules(path));
    else if (/\.tsx?$/.test(entry.name)) {
      for (const [, specifier] of readFileSync(path, 'utf8').matchAll(/from '((?:\.\.\/)+shared\/[^']+)'/g)) {
        // A type-only module (shared/api/schema.d.ts) has no `.ts` of its own.
        const file = specifier && ['.ts', '.d.ts'].map((ext) => `${resolve(dir, specifier)}${ext}`).find(existsSync);
        if (file) found.push(file);
      }
    }
  }
  return found;
}

export function consoleBuildIsStale(): boolean {
  let builtAt: number;
  try {
    builtAt = statSync(builtIndex).mtimeMs;
  } catch {
    return true;
  }
  const sharedModules = importedProjectModules(join(webDir, 'src')).map((path) => statSync(path).mtimeMs);
  return Math.max(newestSource(webDir), ...sharedModules) > builtAt;
}

export async function buildConsole(): Promise<void> {
  const { build } = await import('vite');
  // Vite takes NODE_ENV from the environment when set: under jest (NODE_ENV=test) it would ship an
  // unminified development build. The console is always built for production.
  const inherited = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(webDir, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
  } finally {
    if (inherited === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = inherited;
  }
}

// No top-level await: the e2e global setup loads this file through require().
if (
  import.meta.url === `file://${process.argv[1]}` &&
  !(process.argv.includes('--if-stale') && !consoleBuildIsStale())
) {
  buildConsole().then(
    () => process.stdout.write(`console built into ${join(webDir, 'dist')}\n`),
    (error: unknown) => {
      process.stderr.write(`console build failed: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
