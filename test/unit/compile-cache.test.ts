/**
 * The jest workers' code cache (test/support/compile-cache.ts, installed by every project's test environment): a
 * second compile of a file's source gets the first compile's code cache, a changed source is compiled anew, and
 * what runs is the code of the source given, never a cached older version.
 */
import { describe, expect, it } from '@jest/globals';
import vm from 'node:vm';

type CompiledFunction = ((...args: unknown[]) => unknown) & { cachedDataRejected?: boolean };

let probes = 0;
/** A name no other compile of this worker used. */
const uniqueName = (extension: string) => `/compile-cache-probe/${process.pid}-${Date.now()}-${++probes}.${extension}`;

function compile(source: string, filename: string): CompiledFunction {
  return vm.compileFunction(source, ['x'], { filename }) as CompiledFunction;
}

async function evaluate(source: string, identifier: string): Promise<unknown> {
  const module = new vm.SourceTextModule(source, { identifier });
  await module.link(() => {
    throw new Error('the probe imports nothing');
  });
  await module.evaluate();
  return (module.namespace as { answer: unknown }).answer;
}

describe('the jest workers’ code cache', () => {
  it('hands a second compile of the same file and source the code cache of the first, which V8 accepts', () => {
    const filename = uniqueName('cjs');
    const source = 'return x * 2;';
    const first = compile(source, filename);
    const second = compile(source, filename);
    // V8 sets cachedDataRejected only on a compile that was given cached data.
    expect(first.cachedDataRejected).toBeUndefined();
    expect(second.cachedDataRejected).toBe(false);
    expect([first(21), second(21)]).toEqual([42, 42]);
  });

  it('compiles a file whose source changed anew, and runs the new source', () => {
    const filename = uniqueName('cjs');
    compile('return x * 2;', filename);
    const changed = compile('return x * 3;', filename);
    expect(changed.cachedDataRejected).toBeUndefined();
    expect(changed(21)).toBe(63);
    // The changed source is what the cache holds now.
    expect(compile('return x * 3;', filename).cachedDataRejected).toBe(false);
  });

  it('gives ES modules compiled again the same exports, and a changed module its new ones', async () => {
    const identifier = uniqueName('mjs');
    expect(await evaluate('export const answer = 6 * 7;', identifier)).toBe(42);
    expect(await evaluate('export const answer = 6 * 7;', identifier)).toBe(42);
    expect(await evaluate('export const answer = 6 * 8;', identifier)).toBe(48);
  });
});
