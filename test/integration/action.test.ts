/**
 * The GitHub Action (issue 10 item 2) run the way the runner runs it: `node <runs.main>` of
 * action.yml with no arguments, the step's inputs as INPUT_* (action.yml's defaults filled in
 * as the runner does), GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and for OIDC an
 * ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN endpoint served by the test that mints GitHub-shaped
 * tokens with the loopback issuer (test/support/oidc-issuer.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { CI_SCOPES } from '../../shared/service/identity/scopes';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { validateSarif } from '../support/schema-validation';
import { baseUrl } from '../support/http-client';
import { OWNER_ID, REPOSITORY_ID, startTestIssuer, type TestIssuer } from '../support/oidc-issuer';

/** The SBOM's finding count as the service's own list summary gives it. */
async function findingTotal(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list answer read for one field
  team: { api: { get: (path: string) => Promise<{ body: any }> } },
  sbomId: string,
): Promise<number> {
  return Number((await team.api.get(`/api/sboms/${sbomId}/vulnerabilities?perPage=1`)).body.summary.total);
}

const ROOT = resolve(import.meta.dirname, '../..');
const SPRING = join(ROOT, 'test/fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json');
const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  runs: { using: string; main: string };
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, unknown>;
};

interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** GITHUB_OUTPUT as @actions/core writes it: `name<<delimiter\nvalue\ndelimiter`. */
function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const [name, delimiter] = (lines[index] ?? '').split('<<');
    if (!name || !delimiter) continue;
    const end = lines.indexOf(delimiter, index + 1);
    outputs[name] = lines.slice(index + 1, end).join('\n');
    index = end;
  }
  return outputs;
}

/** One step of a job: the runner's environment, the inputs given plus action.yml's defaults. */
function runAction(inputs: Record<string, string>, env: Record<string, string> = {}): Promise<ActionRun> {
  const dir = mkdtempSync(join(tmpdir(), 'vexdesk-action-'));
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  writeFileSync(files.GITHUB_OUTPUT, '');
  writeFileSync(files.GITHUB_STEP_SUMMARY, '');
  const withDefaults: Record<string, string> = {};
  for (const [name, spec] of Object.entries(ACTION.inputs))
    if (spec.default !== undefined) withDefaults[name] = spec.default;
  Object.assign(withDefaults, inputs);
  const inputEnv = Object.fromEntries(
    Object.entries(withDefaults).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
  );
  const runnerEnv = {
    PATH: process.env.PATH ?? '',
    HOME: tmpdir(),
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_WORKSPACE: ROOT,
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REF_TYPE: 'branch',
    GITHUB_REF_NAME: 'main',
    GITHUB_SHA: randomBytes(20).toString('hex'),
    RUNNER_TEMP: dir,
    ...files,
    ...inputEnv,
    ...env,
  };
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, ACTION.runs.main)],
      { cwd: ROOT, env: runnerEnv, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        done({
          code,
          stdout,
          stderr,
          outputs: readOutputs(files.GITHUB_OUTPUT),
          summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
        });
      },
    );
  });
}

describe('the Action with an API key', () => {
  it('runs on node24 from the committed bundle', () => {
    expect(ACTION.runs).toEqual({ using: 'node24', main: 'dist/vexdesk.mjs' });
  });

  it("uploads to the tag's release, fails the critical gate (exit 1) and writes the outputs and a summary with KEV first", async () => {
    const team = await createTeamWithKey();
    const product = uniqueSlug('action');

    const sarifFile = join(mkdtempSync(join(tmpdir(), 'vexdesk-action-sarif-')), 'results', 'vexdesk.sarif');
    const run = await runAction(
      { url: baseUrl(), token: team.key, sbom: SPRING, product, 'fail-on': 'critical', 'sarif-file': sarifFile },
      { GITHUB_REF: 'refs/tags/v1.2.3', GITHUB_REF_TYPE: 'tag', GITHUB_REF_NAME: 'v1.2.3' },
    );

    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::Vexdesk gate failed: 3 finding(s) are severity critical or above');
    expect(run.stderr).toContain(`::add-mask::${team.key}`);
    const { outputs } = run;
    // The corpus is shared with other test files, which may add advisories for the fixture's packages: totals come from the service.
    const total = String(await findingTotal(team, outputs['sbom-id']!));
    expect(outputs).toMatchObject({
      'gate-result': 'fail',
      'gate-failures': '3',
      'findings-total': total,
      'findings-critical': '3',
      'findings-high': '3',
      'findings-kev': '3',
      'findings-untriaged': total,
      'component-count': '88',
    });
    expect(Object.keys(outputs).sort()).toEqual(Object.keys(ACTION.outputs).sort());
    const release = (await team.api.get(`/api/releases/${outputs['release-id']}`)).body.data;
    expect(release.version).toBe('v1.2.3');
    expect((await team.api.get(`/api/sboms/${outputs['sbom-id']}`)).body.data.releaseId).toBe(outputs['release-id']);
    expect(run.summary).toContain(`## Vexdesk: ${product} v1.2.3`);
    expect(run.summary).toContain('Gate: ❌ **failed** — 3 finding(s) are severity critical or above');
    const table = run.summary.split('\n').filter((line) => line.startsWith('| '));
    expect(table[0]).toBe('| | Undecided | Affected | Under investigation | Not affected | Fixed | Total |');
    expect(table[1]).toBe('| **Known exploited (KEV)** | 3 | 0 | 0 | 0 | 0 | 3 |');
    expect(table[2]).toBe('| Critical | 3 | 0 | 0 | 0 | 0 | 3 |');
    expect(table[3]).toBe('| High | 3 | 0 | 0 | 0 | 0 | 3 |');
    expect(run.summary).toContain(`[SBOM findings](${baseUrl()}/api/sboms/${outputs['sbom-id']}/vulnerabilities)`);
    expect(run.summary).toMatch(/\| CRITICAL \| CVE-2022-22965 \| spring-\S+@[\d.]+RELEASE \| \*\*yes\*\* \|/);
    // sarif-file: the SBOM's findings for upload-sarif, valid SARIF 2.1.0, located at the `sbom` input's path.
    expect(outputs['sarif-file']).toBe(sarifFile);
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8'));
    expect(validateSarif(sarif).errors).toEqual([]);
    const results = sarif.runs[0].results as {
      locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
    }[];
    expect(results.length).toBeGreaterThan(0);
    for (const result of results)
      expect(result.locations[0]!.physicalLocation.artifactLocation.uri).toContain(
        'cyclonedx-1.5_maven_cdxgen_vuln-spring.json',
      );
  });

  it('passes (exit 0) when the KEV findings are decided not_affected, with the short sha as the release by default', async () => {
    const team = await createTeamWithKey();
    const product = uniqueSlug('action');
    const first = await runAction(
      { url: baseUrl(), token: team.key, sbom: SPRING, product, kev: 'true' },
      { GITHUB_SHA: 'abcdef0123456789abcdef0123456789abcdef01' },
    );
    expect(first.code).toBe(1);
    const findings = (await team.api.get(`/api/sboms/${first.outputs['sbom-id']}/vulnerabilities?kev=true&perPage=10`))
      .body.data as { id: string }[];
    for (const finding of findings)
      await team.api.post('/api/dispositions', {
        vulnerabilityId: finding.id,
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
      });

    const second = await runAction(
      { url: baseUrl(), token: team.key, sbom: SPRING, product, kev: 'true', untriaged: 'false' },
      { GITHUB_SHA: 'abcdef0123456789abcdef0123456789abcdef01' },
    );

    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({
      'gate-result': 'pass',
      'gate-failures': '0',
      'sbom-id': first.outputs['sbom-id'],
    });
    expect((await team.api.get(`/api/releases/${second.outputs['release-id']}`)).body.data.version).toBe('abcdef0');
    expect(second.summary).toContain('| **Known exploited (KEV)** | 0 | 0 | 0 | 3 | 0 | 3 |');
    expect(second.summary).toContain('Gate: ✅ **passed**');
  });

  it('skips the gate without a condition, and exits 2 on a bad input and 3 on a refused token', async () => {
    const team = await createTeamWithKey();

    const skipped = await runAction({ url: baseUrl(), token: team.key, sbom: SPRING, product: uniqueSlug('action') });
    const badInput = await runAction({
      url: baseUrl(),
      token: team.key,
      sbom: SPRING,
      product: uniqueSlug('action'),
      kev: 'yes',
    });
    const noSbom = await runAction({ url: baseUrl(), token: team.key, product: uniqueSlug('action') });
    const refused = await runAction({
      url: baseUrl(),
      token: `vxd_${'0'.repeat(64)}`,
      sbom: SPRING,
      product: uniqueSlug('action'),
    });

    expect(skipped.code).toBe(0);
    expect(skipped.outputs['gate-result']).toBe('skipped');
    expect(skipped.summary).toContain('Gate: not run');
    expect(badInput.code).toBe(2);
    expect(badInput.stdout).toContain('::error::input kev must be true or false');
    expect(noSbom.code).toBe(2);
    expect(noSbom.outputs['gate-result']).toBe('error');
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain('401');
  });
});

describe("the Action signed in with the job's OIDC token", () => {
  let issuer: TestIssuer;
  let tokenEndpoint: Server;
  let endpointUrl: string;
  const requestToken = randomBytes(16).toString('hex');
  const requests: { audience: string | null; authorized: boolean }[] = [];

  beforeAll(async () => {
    issuer = await startTestIssuer();
    // The runner's ID-token endpoint: `Authorization: Bearer <ACTIONS_ID_TOKEN_REQUEST_TOKEN>`, `&audience=…` → `{ value }`.
    tokenEndpoint = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const authorized = request.headers.authorization === `Bearer ${requestToken}`;
      requests.push({ audience: url.searchParams.get('audience'), authorized });
      if (!authorized) {
        response.writeHead(401).end();
        return;
      }
      void issuer.mint({ aud: url.searchParams.get('audience') ?? 'https://github.com/octo-org' }).then((value) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ value }));
      });
    });
    await new Promise<void>((listening) => tokenEndpoint.listen(0, '127.0.0.1', listening));
    endpointUrl = `http://127.0.0.1:${(tokenEndpoint.address() as AddressInfo).port}/_apis/distributedtask/hubs/build/plans/p/jobs/j/idtoken?api-version=2.0`;
  });
  afterAll(async () => {
    await new Promise((closed) => tokenEndpoint.close(closed));
    await issuer.close();
  });

  async function teamWithPolicy(audience = 'vexdesk') {
    const team = await createTeamWithKey();
    const name = `ci-${uniqueSlug('p')}`;
    const policy = await team.api.post('/api/trust-policies', {
      name,
      issuer: issuer.issuer,
      audience,
      claims: {
        repository_owner_id: OWNER_ID,
        repository_id: REPOSITORY_ID,
        sub: 'repo:octo-org/octo-repo:ref:refs/heads/*',
      },
      scopes: [...CI_SCOPES],
    });
    if (policy.status !== 201) throw new Error(`policy create failed: ${policy.status} ${policy.text}`);
    return { ...team, policyName: name };
  }

  it("exchanges the job's token for a workload token and runs upload and gate with it, storing no secret", async () => {
    const team = await teamWithPolicy();
    const before = requests.length;

    const run = await runAction(
      {
        url: baseUrl(),
        team: team.teamId,
        sbom: SPRING,
        product: uniqueSlug('oidc'),
        release: '9.9.9',
        'fail-on': 'high',
      },
      { ACTIONS_ID_TOKEN_REQUEST_URL: endpointUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: requestToken },
    );

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      'gate-result': 'fail',
      'gate-failures': '6',
      'findings-total': String(await findingTotal(team, run.outputs['sbom-id']!)),
    });
    expect(requests.slice(before)).toEqual([{ audience: 'vexdesk', authorized: true }]);
    // Both the job's JWT and the issued vxo_ token are masked in the log.
    expect(run.stderr).toMatch(/::add-mask::eyJ/);
    expect(run.stderr).toMatch(/::add-mask::vxo_[0-9a-f]{64}/);
    // The upload was made as the policy and the job, not as the team's key.
    const audit = await team.api.get(`/api/audit/export?accountId=${team.teamId}&entityType=sbom`);
    expect(audit.status).toBe(200);
    expect(audit.text).toContain(
      `upload,sbom,${run.outputs['sbom-id']},cyclonedx-1.5_maven_cdxgen_vuln-spring.json,,oidc_${team.policyName} (octo-org/octo-repo refs/heads/main run 9876543210)`,
    );
  });

  it("exits 3 with the service's refusal when no policy trusts the requested audience, 2 without the team", async () => {
    const team = await teamWithPolicy('another-audience');

    const refused = await runAction(
      { url: baseUrl(), team: team.teamId, sbom: SPRING, product: uniqueSlug('oidc'), kev: 'true' },
      { ACTIONS_ID_TOKEN_REQUEST_URL: endpointUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: requestToken },
    );
    const noTeam = await runAction(
      { url: baseUrl(), sbom: SPRING, product: uniqueSlug('oidc'), kev: 'true' },
      { ACTIONS_ID_TOKEN_REQUEST_URL: endpointUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: requestToken },
    );

    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain('invalid_audience');
    expect((await team.api.get('/api/products?perPage=10')).body.data).toEqual([]);
    expect(noTeam.code).toBe(2);
    expect(noTeam.stdout).toContain('team id');
  });
});
