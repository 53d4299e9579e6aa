/**
 * The VEX import validates against the official schemas at run time, so the schemas must be
 * inside the function bundle: built with the stack's esbuild options, the validator runs in a
 * fresh Node process from a directory that holds nothing but the bundle.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { build } from 'esbuild';
import { BUNDLE_FILE_NAME, esbuildOptions } from '../../lib/bundling';
import { PROJECT_ROOT } from '../../lib/function-catalog';

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'vexdesk-vex-import-bundle-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe('VEX import schemas in the bundle', () => {
  it('validates CycloneDX 1.7, OpenVEX and CSAF documents with no schema file beside the bundle', async () => {
    await build({
      ...esbuildOptions('unused.ts', workDir),
      entryPoints: undefined,
      splitting: false,
      stdin: {
        contents: "export { schemaViolations } from './shared/service/vex/import/schema-validation';",
        resolveDir: PROJECT_ROOT,
        loader: 'ts',
      },
    });
    const script = `const m = await import(${JSON.stringify(pathToFileURL(join(workDir, BUNDLE_FILE_NAME)).href)});
      process.stdout.write(JSON.stringify({
        cdx: m.schemaViolations('cyclonedx_vex', { bomFormat: 'CycloneDX', specVersion: '1.7', version: 1, vulnerabilities: [{ id: 'CVE-2021-44228', analysis: { state: 'maybe' } }] }).map((d) => d.path),
        openvex: m.schemaViolations('openvex', { '@context': 'https://openvex.dev/ns/v0.2.0' }).map((d) => d.code),
        csaf: m.schemaViolations('csaf', { document: { category: 'csaf_vex' } }).length > 0,
      }));`;

    const output = execFileSync(process.execPath, ['--input-type=module', '--eval', script], {
      cwd: workDir,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });

    expect(readdirSync(workDir).filter((file) => file.endsWith('.json'))).toEqual([]);
    expect(JSON.parse(output)).toEqual({
      cdx: ['/vulnerabilities/0/analysis/state'],
      openvex: expect.arrayContaining(['required']),
      csaf: true,
    });
  });
});
