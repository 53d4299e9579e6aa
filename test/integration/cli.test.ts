/**
 * The client CLI (docs/ci.md) run as a child process, the committed bundle (dist/vexdesk.mjs, checked
 * against the source by cli-dist.test.ts), against the real local server: SARIF output and uploads. The
 * gates: cli-gate.test.ts; whoami and verify: cli-verify.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { validateSarif } from '../support/schema-validation';
import { SPRING, vexdesk, as, uploadSpring, findingsOf, decide, createHashOf } from '../support/cli-runs';

describe('vexdesk sarif', () => {
  it('writes SARIF 2.1.0 valid against the official schema, suppressing decided findings, for an SBOM and for a release', async () => {
    const team = await createTeamWithKey();
    const { sbomId, releaseId } = await uploadSpring(team);
    const kev = (await findingsOf(team, sbomId)).filter((finding) => finding.is_kev);
    expect(kev).toHaveLength(3);
    await decide(
      team,
      kev.map((finding) => finding.id),
      'not_affected',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'vexdesk-sarif-')), 'out', 'vexdesk.sarif');

    const run = await vexdesk(['sarif', '--sbom', sbomId, '--sbom-path', 'sboms/bom.json', '--output', file], as(team));

    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const log = JSON.parse(readFileSync(file, 'utf8'));
    expect(validateSarif(log).errors).toEqual([]);
    const results = log.runs[0].results as {
      ruleId: string;
      suppressions?: { kind: string; status: string }[];
      locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
    }[];
    expect(results.length).toBeGreaterThan(0);
    for (const result of results)
      expect(result.locations[0]!.physicalLocation.artifactLocation.uri).toBe('sboms/bom.json');
    // The KEV advisory's results are suppressed (decided not_affected); the high ones stay open alerts.
    const suppressed = results.filter((result) => (result.suppressions ?? []).length > 0);
    expect(suppressed.length).toBeGreaterThan(0);
    expect(suppressed.length).toBeLessThan(results.length);
    expect(new Set(suppressed.map((result) => result.ruleId)).size).toBe(
      new Set(kev.map((finding) => finding.cve_id)).size,
    );

    // The release's list, on stdout: the same results, located the same way.
    const release = await vexdesk(['sarif', '--release', releaseId, '--sbom-path', 'sboms/bom.json'], as(team));
    expect(release.code).toBe(0);
    expect(validateSarif(release.json).errors).toEqual([]);
    expect(release.json.runs[0].results).toHaveLength(results.length);

    expect((await vexdesk(['sarif'], as(team))).code).toBe(2);
  });
});

describe('vexdesk upload', () => {
  it('finds or creates the product and release, uploads, waits for the scan and prints the ids and counts', async () => {
    const team = await createTeamWithKey();
    const slug = uniqueSlug('spring');

    const run = await vexdesk(
      ['upload', SPRING, '--product', slug, '--release', '2.0.0', '--create', '--json'],
      as(team),
    );

    expect(run.code).toBe(0);
    expect(run.stderr).toContain('uploaded SBOM');
    const { productId, releaseId, sbomId, componentCount, findings } = run.json;
    const product = (await team.api.get(`/api/products/${productId}`)).body.data;
    expect(product.slug).toBe(slug);
    expect((await team.api.get(`/api/releases/${releaseId}`)).body.data.version).toBe('2.0.0');
    const sbom = (await team.api.get(`/api/sboms/${sbomId}`)).body.data;
    expect(sbom).toMatchObject({
      releaseId,
      component_count: componentCount,
      file_name: 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json',
    });
    // Waited: the scan is done when the command returns.
    expect(sbom.scan.status).toBe('completed');
    // The corpus is shared with other test files, which may add advisories for the fixture's packages: the total is the service's.
    const total = Number((await team.api.get(`/api/sboms/${sbomId}/vulnerabilities?perPage=1`)).body.summary.total);
    expect(findings).toMatchObject({ total, critical: 3, high: 3, kev: 3, untriaged: total });
    expect(findings.critical + findings.high + findings.medium + findings.low + findings.none).toBe(total);
    expect(sbom.file_hash).toBe(createHashOf(readFileSync(SPRING)));

    // A retried build: found, not created again; the same bytes are the same SBOM.
    const again = await vexdesk(['upload', SPRING, '--product', slug, '--release', '2.0.0', '--json'], as(team));
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ productId, releaseId, sbomId });
    expect(again.stderr).toContain('found product');
  });

  it('uploads through the pre-signed flow and prints a table on stdout, progress on stderr', async () => {
    const team = await createTeamWithKey();

    const run = await vexdesk(
      ['upload', SPRING, '--product', uniqueSlug('presigned'), '--release', '1.0.0', '--create', '--presigned'],
      as(team),
    );

    expect(run.code).toBe(0);
    expect(run.stderr).toContain('(presigned)');
    expect(run.stdout).toMatch(/sbom\s+[0-9a-f-]{36}/);
    expect(run.stdout).toContain('6 findings: 3 critical, 3 high');
    expect(run.stdout).not.toContain('uploading');
  });

  it('refuses an unknown product without --create (exit 2) and an unreadable file (exit 2)', async () => {
    const team = await createTeamWithKey();

    const unknown = await vexdesk(
      ['upload', SPRING, '--product', uniqueSlug('absent'), '--release', '1.0.0'],
      as(team),
    );
    const missing = await vexdesk(
      ['upload', join(tmpdir(), `${randomUUID()}.json`), '--product', 'x', '--release', '1'],
      as(team),
    );

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--create');
    expect((await team.api.get('/api/products?perPage=10')).body.data).toEqual([]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('ENOENT');
  });

  it('adopts the product and release a concurrent job created (409 existing_id)', async () => {
    const team = await createTeamWithKey();
    const slug = uniqueSlug('race');

    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        vexdesk(['upload', SPRING, '--product', slug, '--release', '3.0.0', '--create', '--json'], as(team)),
      ),
    );

    expect(runs.map((run) => run.code)).toEqual([0, 0, 0, 0]);
    const ids = runs.map((run) => run.json as { productId: string; releaseId: string; sbomId: string });
    expect(new Set(ids.map((id) => id.productId)).size).toBe(1);
    expect(new Set(ids.map((id) => id.releaseId)).size).toBe(1);
    expect(new Set(ids.map((id) => id.sbomId)).size).toBe(1);
  });
});
