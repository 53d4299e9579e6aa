/**
 * The committed bundle is what `npx vexdesk` and the Action run (package.json `bin`,
 * action.yml `runs.main`): it must be exactly a fresh build of the source, as
 * actions/typescript-action's check-dist has it. Fails after a source change that was not
 * rebuilt: run `npm run build:cli` and commit dist/.
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE, PACKAGE_MANIFEST, ROOT, buildBundle, cliPackageManifest } from '../../shared/client/bundle';
import { createTeamWithKey } from '../support/factories';
import { baseUrl } from '../support/http-client';

describe('dist/vexdesk.mjs', () => {
  it('equals a fresh build of bin/vexdesk.ts and shared/client', async () => {
    const committed = readFileSync(join(ROOT, BUNDLE), 'utf8');

    const fresh = await buildBundle();

    // Not toBe: a megabyte-long diff helps nobody; the message says what to do.
    if (fresh !== committed)
      throw new Error(
        'dist/vexdesk.mjs is not a build of the current source: run `npm run build:cli` and commit dist/',
      );
    expect(fresh.length).toBe(committed.length);
  });

  it("is the package's bin and the Action's main", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };

    expect(manifest.bin).toEqual({ vexdesk: BUNDLE });
    expect(readFileSync(join(ROOT, 'action.yml'), 'utf8')).toContain(`main: ${BUNDLE}`);
  });

  it('is a publishable package: dist/package.json is the fresh manifest, and the packed tarball installs a working `vexdesk`', async () => {
    expect(readFileSync(join(ROOT, PACKAGE_MANIFEST), 'utf8')).toBe(cliPackageManifest());
    const work = mkdtempSync(join(tmpdir(), 'vexdesk-pack-'));
    const npm = (args: string[]) =>
      execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, npm_config_cache: join(work, 'cache') },
      });
    const team = await createTeamWithKey();

    npm(['pack', join(ROOT, 'dist'), '--pack-destination', work]);
    const [tarball] = readdirSync(work).filter((name) => name.endsWith('.tgz'));
    const listed = execFileSync('tar', ['-tzf', join(work, tarball ?? '')], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .sort();
    npm(['install', '--global', '--prefix', join(work, 'prefix'), join(work, tarball ?? '')]);
    const whoami = execFileSync(join(work, 'prefix/bin/vexdesk'), ['whoami', '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', VEXDESK_URL: baseUrl(), VEXDESK_TOKEN: team.key },
    });

    expect(tarball).toBe(`vexdesk-cli-${(JSON.parse(cliPackageManifest()) as { version: string }).version}.tgz`);
    expect(listed).toEqual(['package/package.json', 'package/vexdesk.mjs']);
    expect(JSON.parse(whoami)).toMatchObject({ team: { id: team.teamId } });
  });
});
