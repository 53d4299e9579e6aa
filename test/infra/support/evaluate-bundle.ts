/** Runs a bundle the way Lambda does: imported by a fresh Node process, with only the environment given. */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Import the bundle in a fresh Node process and return what `expression` (using its exports as `m`) evaluates to. */
export function evaluateBundle(file: string, expression: string, env: Record<string, string> = {}): unknown {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(JSON.stringify(await (${expression})));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '--eval', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(output) as unknown;
}
