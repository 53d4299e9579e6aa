/**
 * The committed bundle is what `npx vexdesk` and the Action run (package.json `bin`,
 * action.yml `runs.main`): it must be exactly a fresh build of the source, as
 * actions/typescript-action's check-dist has it. Fails after a source change that was not
 * rebuilt: run `npm run build:cli` and commit dist/.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE, ROOT, buildBundle } from '../../shared/client/bundle';

describe('dist/vexdesk.mjs', () => {
  it('equals a fresh build of bin/vexdesk.ts and shared/client', async () => {
    const committed = readFileSync(join(ROOT, BUNDLE), 'utf8');

    const fresh = await buildBundle();

    // Not toBe: a megabyte-long diff helps nobody; the message says what to do.
    if (fresh !== committed) throw new Error('dist/vexdesk.mjs is not a build of the current source: run `npm run build:cli` and commit dist/');
    expect(fresh.length).toBe(committed.length);
  });

  it('is the package\'s bin and the Action\'s main', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };

    expect(manifest.bin).toEqual({ vexdesk: BUNDLE });
    expect(readFileSync(join(ROOT, 'action.yml'), 'utf8')).toContain(`main: ${BUNDLE}`);
  });
});
