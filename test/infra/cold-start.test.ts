/**
 * A function deployed without PUBLIC_BASE_URL (or any other required variable) fails
 * its cold start, not a request later: the deployed bundle, built as the stack builds it
 * (once per run, ./support/function-bundles.ts), is loaded in a fresh Node as Lambda's init phase loads it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { BUNDLE_FILE_NAME } from '../../lib/bundling';
import { ALL_BUNDLES_TIMEOUT_MS, functionBundle } from './support/function-bundles';

const DEPLOYED_ENV = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'vexdesk-table',
  SBOM_BUCKET: 'vexdesk-sboms',
  DISCLOSURE_BUCKET: 'vexdesk-disclosures',
  PUBLIC_BASE_URL: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
};

let bundle: string;

beforeAll(async () => {
  bundle = join((await functionBundle('authorizer')).dir, BUNDLE_FILE_NAME);
  // Another worker may be building it among the other functions.
}, ALL_BUNDLES_TIMEOUT_MS);

/** Loads the bundle as the Lambda runtime's init phase does; the error text on failure. */
function load(env: Record<string, string>): { ok: true } | { ok: false; stderr: string } {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)}); if (typeof m.handler !== 'function') process.exit(3);`;
  try {
    execFileSync(process.execPath, ['--input-type=module', '--eval', script], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    return { ok: true };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: string }).stderr) };
  }
}

describe('cold start of a deployed function', () => {
  it('loads with the variables the stack sets', () => {
    expect(load(DEPLOYED_ENV)).toEqual({ ok: true });
  });

  it('fails in the init phase without PUBLIC_BASE_URL, naming the variable', () => {
    const { PUBLIC_BASE_URL: _omitted, ...withoutBaseUrl } = DEPLOYED_ENV;
    const result = load(withoutBaseUrl);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.stderr).toMatch(/Invalid configuration: PUBLIC_BASE_URL: required/);
  });

  it('names the TypeScript sources in its stack traces, without --enable-source-maps', () => {
    const { PUBLIC_BASE_URL: _omitted, ...withoutBaseUrl } = DEPLOYED_ENV;
    const result = load(withoutBaseUrl);
    const stack = result.ok === false ? result.stderr.slice(result.stderr.indexOf('Error: Invalid configuration')) : '';
    // The frame that threw, mapped through index.mjs.map on demand (shared/service/source-mapped-stacks.ts).
    // The function names too, minified in the bundle: the map records them where they are called.
    expect(stack).toMatch(/\n\s+at loadConfig \(shared\/service\/config\.ts:\d+:\d+\)/);
    expect(stack).toMatch(/\n\s+at config \(shared\/service\/config\.ts:\d+:\d+\)/);
    expect(stack).toMatch(/\n\s+at .*shared\/service\/cold-start\.ts:\d+:\d+/);
  });
});
