/**
 * Running the client CLI's committed bundle (dist/vexdesk.mjs) as a child process with a clean environment,
 * and the fixtures the CLI tests share: the Spring SBOM uploaded through it, its findings, decisions.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { createTeamWithKey } from './factories';
import { uniqueSlug } from './factories';
import { baseUrl } from './http-client';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BUNDLE = join(ROOT, 'dist/vexdesk.mjs');
export const SPRING = join(ROOT, 'test/fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the CLI's --json output, read field by field
}

/** The CLI with a clean environment: nothing of the test runner's (no GITHUB_*, no ACTIONS_*) leaks in. */
export function vexdesk(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BUNDLE, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        done({ code, stdout, stderr, json });
      },
    );
  });
}

export type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

export function as(team: { key: string }) {
  return { VEXDESK_URL: baseUrl(), VEXDESK_TOKEN: team.key };
}

/** The Spring fixture uploaded by the CLI: 3 critical KEV findings (CVE-2022-22965) and 3 high ones, all with fixes. */
export async function uploadSpring(team: Team) {
  const run = await vexdesk(
    ['upload', SPRING, '--product', uniqueSlug('spring'), '--release', '1.0.0', '--create', '--json'],
    as(team),
  );
  if (run.code !== 0) throw new Error(`upload failed (${run.code}): ${run.stderr}`);
  return run.json as {
    productId: string;
    releaseId: string;
    sbomId: string;
    componentCount: number;
    findings: Record<string, number>;
  };
}

export async function findingsOf(team: Team, sbomId: string) {
  return (await team.api.get(`/api/sboms/${sbomId}/vulnerabilities?perPage=500`)).body.data as {
    id: string;
    cve_id: string;
    severity: string;
    is_kev: boolean;
  }[];
}

export async function decide(team: Team, ids: string[], status: string, extra: Record<string, unknown> = {}) {
  for (const id of ids) {
    const response = await team.api.post('/api/dispositions', {
      vulnerabilityId: id,
      status,
      ...(status === 'not_affected' ? { justification: 'vulnerable_code_not_in_execute_path' } : {}),
      ...extra,
    });
    if (response.status !== 200 && response.status !== 201)
      throw new Error(`disposition failed: ${response.status} ${response.text}`);
  }
}

export function createHashOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
