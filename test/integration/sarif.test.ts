/**
 * SARIF from real scan output (issue 10, docs/sarif.md): a real SBOM from the fixtures is uploaded
 * raw, scanned by the real server against the sample corpus, decided through the API, and its
 * vulnerability lists are turned into SARIF and checked against the official SARIF 2.1.0 schema.
 */
import { resolve } from 'node:path';
import type { Result } from 'sarif';
import { GITHUB_CODE_SCANNING_LIMITS, toSarif, type Finding } from '../../shared/client/sarif';
import { rawUploadRequest } from '../../shared/client/upload-body';
import { releaseVulnerabilitySchema, sbomVulnerabilitySchema } from '../../shared/service/schemas/sboms';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { baseUrl, request } from '../support/http-client';
import { validateSarif } from '../support/schema-validation';
import { listAll } from '../support/seed';

const SBOM_FILE = resolve(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json');
const SBOM_PATH = 'deploy/sbom/vuln spring#1.cdx.json';
const TOOL = { sbomPath: SBOM_PATH, serviceUrl: 'https://vexdesk.example.com/', toolVersion: '0.1.0' };

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

/** One build: a release of the product with the fixture uploaded raw (as the CLI does) and scanned. */
async function build(team: Team, productId: string, version: string) {
  const release = (await team.api.post(`/api/products/${productId}/releases`, { version })).body.data as { id: string };
  const { query, headers, body } = rawUploadRequest({ path: SBOM_FILE }, release.id);
  const upload = await request('POST', `/api/sboms/upload?${new URLSearchParams(query).toString()}`, {
    key: team.key,
    rawBody: body,
    headers,
  });
  expect(upload.status).toBe(201);
  expect((await team.api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBe(202);
  const findings = (await listAll<unknown>(team.api, `/api/sboms/${upload.body.data.id}/vulnerabilities`)).map((item) =>
    sbomVulnerabilitySchema.parse(item),
  );
  return { releaseId: release.id, sbomId: upload.body.data.id as string, findings };
}

const fingerprints = (results: Result[]) =>
  new Map(
    results.map((result) => [
      `${result.ruleId} ${result.locations?.[0]?.logicalLocations?.[0]?.fullyQualifiedName}`,
      result.partialFingerprints,
    ]),
  );
const resultOf = (results: Result[], finding: Finding) =>
  results.find(
    (result) =>
      result.ruleId === finding.advisory_id &&
      result.locations?.[0]?.logicalLocations?.some(
        (location) => location.fullyQualifiedName === finding.component_purl,
      ),
  );

describe('SARIF from the vulnerability lists', () => {
  let team: Team;
  let first: Awaited<ReturnType<typeof build>>;

  beforeAll(async () => {
    team = await createTeamWithKey();
    const product = (await team.api.post('/api/products', { name: 'Spring app', slug: uniqueSlug('sarif') })).body
      .data as { id: string };
    first = await build(team, product.id, '1.0.0');
  }, 120_000);

  it('is valid SARIF 2.1.0 with one rule per advisory and one result per package and advisory', () => {
    expect(first.findings.length).toBeGreaterThan(5);
    const log = toSarif({ findings: first.findings, ...TOOL });
    expect(validateSarif(log).errors).toEqual([]);
    const run = log.runs[0]!;
    const rules = run.tool.driver.rules ?? [];
    expect(rules.map((rule) => rule.id).sort()).toEqual(
      [...new Set(first.findings.map((finding) => finding.advisory_id))].sort(),
    );
    expect(run.results).toHaveLength(
      new Set(first.findings.map((finding) => `${finding.advisory_id} ${finding.component_purl}`)).size,
    );
    for (const result of run.results ?? []) {
      expect(rules[result.ruleIndex!]!.id).toBe(result.ruleId);
      const location = result.locations![0]!;
      expect(location.physicalLocation!.artifactLocation!.uri).toBe('deploy/sbom/vuln%20spring%231.cdx.json');
      expect(location.logicalLocations![0]!.fullyQualifiedName).toMatch(/^pkg:maven\//);
    }
  });

  it('gives each rule help with CVSS, KEV, EPSS, fixed versions and the advisory link, and the security-severity GitHub bands by', () => {
    const log = toSarif({ findings: first.findings, ...TOOL });
    const rules = log.runs[0]!.tool.driver.rules ?? [];
    const spring4shell = first.findings.find(
      (finding) => finding.cve_id === 'CVE-2022-22965' && finding.component_name === 'spring-beans',
    );
    expect(spring4shell).toBeDefined();
    const rule = rules.find((candidate) => candidate.id === spring4shell!.advisory_id)!;
    expect(rule.helpUri).toBe(`https://osv.dev/vulnerability/${spring4shell!.advisory_id}`);
    expect(rule.help!.markdown).toContain(
      `| CVSS v3 | ${spring4shell!.cvss_v3_score} ${spring4shell!.cvss_v3_vector} |`,
    );
    expect(rule.help!.markdown).toContain('| Known exploited (CISA KEV) | yes, added');
    expect(rule.help!.markdown).toMatch(/\| EPSS \| (not scored|\d+\.\d\d% \(percentile \d+\)) \|/);
    expect(rule.help!.markdown).toContain(
      `| Fixed versions of spring-beans | ${spring4shell!.fixed_versions.join(', ')} |`,
    );
    expect(rule.help!.text).toContain('https://nvd.nist.gov/vuln/detail/CVE-2022-22965');
    const score =
      spring4shell!.severity_source === 'cvss_v4' ? spring4shell!.cvss_v4_score : spring4shell!.cvss_v3_score;
    expect(rule.properties!['security-severity']).toBe(score!.toFixed(1));
    expect(rule.properties!.tags).toEqual(expect.arrayContaining(['security', 'critical', 'kev', 'fixable']));
    for (const each of rules) {
      expect(each.properties!['security-severity']).toMatch(/^(10|\d)\.\d$/);
      expect((each.properties!.tags as string[]).length).toBeLessThanOrEqual(
        GITHUB_CODE_SCANNING_LIMITS.tagsShownPerRule,
      );
    }
    // Most urgent first: KEV results lead (GitHub shows the first 5,000).
    const results = log.runs[0]!.results!;
    expect(results[0]!.properties!.isKev).toBe(true);
  });

  it('suppresses counted not_affected and fixed decisions with their justification, not affected, expired or review_required ones', async () => {
    const [notAffected, fixed, affected, expiring] = uniqueByPackageAndAdvisory(first.findings);
    const decide = (finding: Finding, body: Record<string, unknown>) =>
      team.api.post('/api/dispositions', { vulnerabilityId: finding.id, ...body });
    expect(
      (
        await decide(notAffected!, {
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
          detail: 'Spring MVC data binding is not used',
        })
      ).status,
    ).toBe(201);
    expect((await decide(fixed!, { status: 'fixed', response: 'update' })).status).toBe(201);
    expect((await decide(affected!, { status: 'affected', response: 'will_not_fix' })).status).toBe(201);
    expect(
      (
        await decide(expiring!, {
          status: 'not_affected',
          justification: 'component_not_present',
          // Far enough ahead that a slow request still lands before it; passed by the time the list is read.
          expiresAt: new Date(Date.now() + 5000).toISOString(),
        })
      ).status,
    ).toBe(201);
    await new Promise((done) => setTimeout(done, 5500));

    const findings = (await listAll<unknown>(team.api, `/api/sboms/${first.sbomId}/vulnerabilities`)).map((item) =>
      sbomVulnerabilitySchema.parse(item),
    );
    const find = (finding: Finding) => findings.find((each) => each.id === finding.id)!;
    const reviewRequired = {
      ...find(notAffected!),
      disposition: {
        ...find(notAffected!).disposition!,
        decision_state: 'review_required' as const,
        review_required: true,
      },
    };
    const log = toSarif({ findings, ...TOOL });
    expect(validateSarif(log).errors).toEqual([]);
    const results = log.runs[0]!.results!;

    expect(resultOf(results, notAffected!)!.suppressions).toEqual([
      {
        kind: 'external',
        status: 'accepted',
        justification: 'Vexdesk decision: not_affected; justification: vulnerable_code_not_in_execute_path',
        guid: find(notAffected!).disposition!.id,
      },
    ]);
    expect(resultOf(results, fixed!)!.suppressions).toEqual([
      expect.objectContaining({
        kind: 'external',
        status: 'accepted',
        justification: 'Vexdesk decision: fixed; response: update',
      }),
    ]);
    expect(resultOf(results, affected!)!.suppressions).toBeUndefined();
    expect(find(expiring!).disposition!.decision_state).toBe('expired');
    expect(resultOf(results, expiring!)!.suppressions).toBeUndefined();
    expect(resultOf(results, expiring!)!.message.text).toContain(
      'Decision: not_affected (component_not_present) [expired].',
    );
    const reviewLog = toSarif({ findings: [reviewRequired], ...TOOL });
    expect(reviewLog.runs[0]!.results![0]!.suppressions).toBeUndefined();
    // Suppressed results come last: they are the least urgent to show.
    expect(results.at(-1)!.suppressions).toHaveLength(1);
  });

  it('keeps partialFingerprints across builds (new upload, new finding ids) and across both lists', async () => {
    const product = (await team.api.post('/api/products', { name: 'Spring app 2', slug: uniqueSlug('sarif') })).body
      .data as { id: string };
    const [one, two] = [await build(team, product.id, '2.0.0'), await build(team, product.id, '2.0.1')];
    expect(two.findings.map((finding) => finding.id).sort()).not.toEqual(
      one.findings.map((finding) => finding.id).sort(),
    );
    const before = fingerprints(toSarif({ findings: one.findings, ...TOOL }).runs[0]!.results!);
    const after = fingerprints(toSarif({ findings: two.findings, ...TOOL }).runs[0]!.results!);
    expect(after).toEqual(before);
    expect(new Set([...before.values()].map((print) => print!.primaryLocationLineHash)).size).toBe(before.size);

    const releaseRows = (await listAll<unknown>(team.api, `/api/releases/${two.releaseId}/vulnerabilities`)).map(
      (item) => releaseVulnerabilitySchema.parse(item),
    );
    const releaseLog = toSarif({ findings: releaseRows, ...TOOL });
    expect(validateSarif(releaseLog).errors).toEqual([]);
    expect(fingerprints(releaseLog.runs[0]!.results!)).toEqual(before);
    expect(releaseLog.runs[0]!.results![0]!.properties!.sbomIds).toEqual([two.sbomId]);
  }, 120_000);

  it("stays within GitHub code scanning's results limit, most urgent kept, and says what it left out", () => {
    const template = first.findings[0]!;
    const many: Finding[] = Array.from({ length: GITHUB_CODE_SCANNING_LIMITS.resultsPerRun + 10 }, (_, index) => ({
      ...template,
      id: `synthetic-${index}`,
      component_name: `lib${index}`,
      component_purl: `pkg:npm/lib${index}@1.0.0`,
      severity: index < 10 ? 'CRITICAL' : 'LOW',
      severity_source: 'advisory',
      is_kev: false,
      disposition: undefined,
    }));
    const log = toSarif({ findings: many, ...TOOL });
    const run = log.runs[0]!;
    expect(run.results).toHaveLength(GITHUB_CODE_SCANNING_LIMITS.resultsPerRun);
    expect(run.results!.slice(0, 10).every((result) => result.level === 'error')).toBe(true);
    expect(run.properties).toMatchObject({ resultsDropped: 10 });
    expect(run.invocations![0]!.toolExecutionNotifications![0]!.message.text).toContain('10 of 25010 results left out');
    expect(validateSarif({ ...log, runs: [{ ...run, results: run.results!.slice(0, 50) }] }).errors).toEqual([]);
  });

  it('is what a real service URL answers: the same findings over HTTP validate (no test-only shaping)', async () => {
    const page = await request('GET', `/api/sboms/${first.sbomId}/vulnerabilities?perPage=5&sort=-cvss`, {
      key: team.key,
    });
    expect(page.status).toBe(200);
    const log = toSarif({
      findings: (page.body.data as unknown[]).map((item) => sbomVulnerabilitySchema.parse(item)),
      ...TOOL,
      serviceUrl: baseUrl(),
    });
    expect(validateSarif(log).errors).toEqual([]);
    expect(log.runs[0]!.tool.driver.informationUri).toBe(baseUrl());
  });
});

/** Findings of distinct (advisory, package) pairs, so each decision lands on its own result. */
function uniqueByPackageAndAdvisory(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = `${finding.advisory_id} ${finding.component_purl}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
