/** Runs a bundle the way Lambda does: imported by a fresh Node process, with only the environment given. */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';

const execFileAsync = promisify(execFile);

/** The child's arguments: the result goes out as the last line of stdout, after whatever the bundle logged there. */
function childProcessOf(file: string, expression: string, env: Record<string, string>) {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write('\\n' + JSON.stringify(await (${expression})));`;
  return {
    args: ['--input-type=module', '--eval', script],
    options: { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' as const },
  };
}

const resultOf = (stdout: string): unknown => JSON.parse(stdout.slice(stdout.lastIndexOf('\n') + 1)) as unknown;

/** Import the bundle in a fresh Node process and return what `expression` (using its exports as `m`) evaluates to. */
export function evaluateBundle(file: string, expression: string, env: Record<string, string> = {}): unknown {
  const { args, options } = childProcessOf(file, expression, env);
  return resultOf(execFileSync(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * The same without blocking this process, for a bundle that calls servers this process runs (a webhook
 * receiver). Rejects with the child's stderr when it fails.
 */
export async function evaluateBundleAsync(
  file: string,
  expression: string,
  env: Record<string, string> = {},
): Promise<unknown> {
  const { args, options } = childProcessOf(file, expression, env);
  const { stdout } = await execFileAsync(process.execPath, args, options);
  return resultOf(stdout);
}
