/**
 * The client CLI (issue 10 item 1, docs/ci.md) run as a child process, the committed bundle
 * (dist/vexdesk.mjs, checked against the source by cli-dist.test.ts), against the real local
 * server: upload of a real fixture SBOM, every gate's pass and fail runs with their exit codes,
 * whoami, verify, and the usage / service error codes.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { importAdvisories, importEpss } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { config } from '../../shared/service/config';
import { s3Client } from '../../shared/service/aws-s3';
import { Disclosures } from '../../shared/service/disclosures/disclosures';
import { addKey, createTeamWithKey, uniqueSlug } from '../support/factories';
import { baseUrl } from '../support/http-client';
import { validateSarif } from '../support/schema-validation';
import { cycloneDxSbom, seedReleaseWithFindings } from '../support/seed';

const ROOT = resolve(import.meta.dirname, '../..');
const BUNDLE = join(ROOT, 'dist/vexdesk.mjs');
const SPRING = join(ROOT, 'test/fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the CLI's --json output, read field by field
}

/** The CLI with a clean environment: nothing of the test runner's (no GITHUB_*, no ACTIONS_*) leaks in. */
function vexdesk(args: string[], env: Record<string, string> = {}): Promise<Run> {
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

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

function as(team: { key: string }) {
  return { VEXDESK_URL: baseUrl(), VEXDESK_TOKEN: team.key };
}

/** The Spring fixture uploaded by the CLI: 3 critical KEV findings (CVE-2022-22965) and 3 high ones, all with fixes. */
async function uploadSpring(team: Team) {
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

async function findingsOf(team: Team, sbomId: string) {
  return (await team.api.get(`/api/sboms/${sbomId}/vulnerabilities?perPage=500`)).body.data as {
    id: string;
    cve_id: string;
    severity: string;
    is_kev: boolean;
  }[];
}

async function decide(team: Team, ids: string[], status: string, extra: Record<string, unknown> = {}) {
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

function createHashOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('vexdesk gate', () => {
  it('fails on severity and KEV until the findings are decided not_affected or fixed; affected still fails on severity', async () => {
    const team = await createTeamWithKey();
    const { sbomId } = await uploadSpring(team);
    const findings = await findingsOf(team, sbomId);
    const kev = findings.filter((finding) => finding.is_kev).map((finding) => finding.id);
    const high = findings.filter((finding) => finding.severity === 'HIGH').map((finding) => finding.id);

    const critical = await vexdesk(['gate', '--sbom', sbomId, '--fail-on', 'critical', '--json'], as(team));
    const kevGate = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(team));
    expect(critical.code).toBe(1);
    expect(critical.json.result).toBe('fail');
    expect(critical.json.failing.map((row: { cve_id: string }) => row.cve_id)).toEqual([
      'CVE-2022-22965',
      'CVE-2022-22965',
      'CVE-2022-22965',
    ]);
    expect(kevGate.code).toBe(1);
    expect(kevGate.stdout).toContain('gate FAILED: 3 of 6 findings');

    await decide(team, kev.slice(0, 2), 'not_affected');
    await decide(team, kev.slice(2), 'fixed');
    await decide(team, high, 'affected', { response: 'update' });

    const criticalAfter = await vexdesk(['gate', '--sbom', sbomId, '--fail-on', 'critical', '--json'], as(team));
    const kevAfter = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(team));
    const highAfter = await vexdesk(['gate', '--sbom', sbomId, '--fail-on', 'high', '--json'], as(team));
    const untriaged = await vexdesk(['gate', '--sbom', sbomId, '--untriaged'], as(team));
    expect(criticalAfter.code).toBe(0);
    expect(criticalAfter.json).toMatchObject({ result: 'pass', sbomId, failing: [] });
    expect(kevAfter.code).toBe(0);
    expect(kevAfter.stdout).toContain('gate passed');
    // Decided affected is triaged but still vulnerable: it fails on severity, not on --untriaged.
    expect(highAfter.code).toBe(1);
    expect(highAfter.json.failing).toHaveLength(3);
    expect(highAfter.json.failing.every((row: { decision: string }) => row.decision === 'affected')).toBe(true);
    expect(untriaged.code).toBe(0);
  });

  it('counts an expired decision as undecided: the finding fails --untriaged and --kev again once it expires', async () => {
    const team = await createTeamWithKey();
    const { sbomId, releaseId } = await uploadSpring(team);
    const findings = await findingsOf(team, sbomId);
    await decide(
      team,
      findings.filter((finding) => !finding.is_kev).map((finding) => finding.id),
      'not_affected',
    );
    const expiring = findings.filter((finding) => finding.is_kev).map((finding) => finding.id);
    // Long enough for the first gate to run before it on a loaded machine; the second waits it out.
    const expiresAt = Date.now() + 10_000;
    await decide(team, expiring, 'not_affected', { expiresAt: new Date(expiresAt).toISOString() });

    const before = await vexdesk(['gate', '--release', releaseId, '--untriaged', '--kev'], as(team));
    await new Promise((done) => setTimeout(done, Math.max(0, expiresAt + 500 - Date.now())));
    const after = await vexdesk(['gate', '--release', releaseId, '--untriaged', '--kev', '--json'], as(team));

    expect(before.stdout).toContain('gate passed');
    expect(before.code).toBe(0);
    expect(after.code).toBe(1);
    expect(after.json.releaseId).toBe(releaseId);
    expect(after.json.failing).toHaveLength(3);
    expect(after.json.failing[0]).toMatchObject({ decision: 'undecided', reasons: ['kev', 'untriaged'] });
  });

  it('gates on EPSS, unscored findings and --fixable-only', async () => {
    const team = await createTeamWithKey();
    const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
    const base = randomInt(1_000_000, 9_000_000);
    const cves = [`CVE-2091-${base}`, `CVE-2091-${base + 1}`];
    const names = [`cli-${suffix}-scored`, `cli-${suffix}-unscored`];
    await importAdvisories([
      // Scored critical, EPSS 0.9, fixed in 2.0.0.
      {
        source: 'test',
        advisory: parseOsvAdvisory({
          id: `GHSA-cli-${suffix}-a`,
          modified: new Date().toISOString(),
          aliases: [cves[0]],
          summary: 'scored',
          severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
          affected: [
            {
              package: { ecosystem: 'npm', name: names[0] },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
            },
          ],
        }),
      },
      // No severity from any source, no fix known.
      {
        source: 'test',
        advisory: parseOsvAdvisory({
          id: `GHSA-cli-${suffix}-b`,
          modified: new Date().toISOString(),
          aliases: [cves[1]],
          summary: 'unscored',
          affected: [
            {
              package: { ecosystem: 'npm', name: names[1] },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
            },
          ],
        }),
      },
    ]);
    await importEpss({
      modelVersion: null,
      scoreDate: null,
      skipped: 0,
      scores: new Map([[cves[0]!, { epss: 0.9, percentile: 0.99 }]]),
    });
    const file = join(mkdtempSync(join(tmpdir(), 'vexdesk-cli-')), 'bom.json');
    writeFileSync(
      file,
      cycloneDxSbom(names.map((name) => ({ name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` }))),
    );
    const uploaded = await vexdesk(
      ['upload', file, '--product', uniqueSlug('epss'), '--release', '1.0.0', '--create', '--json'],
      as(team),
    );
    expect(uploaded.code).toBe(0);
    const sbom = ['--sbom', uploaded.json.sbomId as string];

    const runs = {
      epssHigh: await vexdesk(['gate', ...sbom, '--epss', '0.5', '--json'], as(team)),
      epssAbove: await vexdesk(['gate', ...sbom, '--epss', '0.95'], as(team)),
      unscored: await vexdesk(['gate', ...sbom, '--fail-on-unscored', '--json'], as(team)),
      unscoredFixable: await vexdesk(['gate', ...sbom, '--fail-on-unscored', '--fixable-only'], as(team)),
      criticalFixable: await vexdesk(['gate', ...sbom, '--fail-on', 'critical', '--fixable-only'], as(team)),
      low: await vexdesk(['gate', ...sbom, '--fail-on', 'low', '--json'], as(team)),
    };

    expect(runs.epssHigh.code).toBe(1);
    expect(runs.epssHigh.json.failing).toEqual([
      expect.objectContaining({ cve_id: cves[0], epss_score: 0.9, reasons: ['epss 0.9'] }),
    ]);
    expect(runs.epssAbove.code).toBe(0);
    expect(runs.unscored.code).toBe(1);
    expect(runs.unscored.json.failing).toEqual([
      expect.objectContaining({ cve_id: cves[1], severity: 'NONE', reasons: ['unscored'] }),
    ]);
    expect(runs.unscoredFixable.code).toBe(0);
    expect(runs.criticalFixable.code).toBe(1);
    // An unscored finding is below every severity: only --fail-on-unscored fails closed on it.
    expect(runs.low.json.failing.map((row: { cve_id: string }) => row.cve_id)).toEqual([cves[0]]);
  });

  it.each([
    ['no condition', ['gate', '--sbom', randomUUID()]],
    ['both targets', ['gate', '--sbom', randomUUID(), '--release', randomUUID(), '--kev']],
    ['no target', ['gate', '--kev']],
    ['an unknown severity', ['gate', '--sbom', randomUUID(), '--fail-on', 'urgent']],
    ['an EPSS above 1', ['gate', '--sbom', randomUUID(), '--epss', '50']],
    ['an id that is not one', ['gate', '--sbom', 'latest', '--kev']],
    ['an unknown flag', ['gate', '--sbom', randomUUID(), '--severity', 'high']],
    ['an unknown command', ['scan']],
  ])('exits 2 on a usage error: %s', async (_name, args) => {
    const team = await createTeamWithKey();

    const run = await vexdesk(args, as(team));

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^vexdesk: /);
    expect(run.stdout).toBe('');
  });

  it('exits 2 without a service URL or a credential, and 3 when the service refuses or cannot be reached', async () => {
    const team = await createTeamWithKey();
    const { sbomId } = await uploadSpring(team);
    const reader = await addKey(team.teamId, team.memberId, ['sboms:read']);
    const other = await createTeamWithKey();

    const noUrl = await vexdesk(['whoami'], { VEXDESK_TOKEN: team.key });
    const noToken = await vexdesk(['whoami'], { VEXDESK_URL: baseUrl() });
    const plainHttp = await vexdesk(['whoami'], { VEXDESK_URL: 'http://vexdesk.example.com', VEXDESK_TOKEN: team.key });
    const badToken = await vexdesk(['gate', '--sbom', sbomId, '--kev'], {
      VEXDESK_URL: baseUrl(),
      VEXDESK_TOKEN: `vxd_${'0'.repeat(64)}`,
    });
    const noScope = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(reader));
    const otherTeam = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(other));
    const unreachable = await vexdesk(['whoami'], { VEXDESK_URL: 'http://127.0.0.1:9', VEXDESK_TOKEN: team.key });

    expect([noUrl.code, noToken.code, plainHttp.code]).toEqual([2, 2, 2]);
    expect(badToken.code).toBe(3);
    expect(badToken.stderr).toContain('401');
    expect(noScope.code).toBe(3);
    expect(noScope.stderr).toContain('403');
    expect(otherTeam.code).toBe(3);
    expect(otherTeam.stderr).toContain('404');
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('cannot reach');
  });
});

describe('vexdesk whoami', () => {
  it("prints the credential's team, caller, scopes and expiry", async () => {
    const team = await createTeamWithKey(['products:read', 'sboms:read'], { expiresInDays: 30 });

    const json = await vexdesk(['whoami', '--json'], as(team));
    const human = await vexdesk(['whoami', '--url', baseUrl(), '--token', team.key], {});

    expect(json.code).toBe(0);
    expect(json.json).toMatchObject({
      team: { id: team.teamId },
      caller: { type: 'service_account' },
      scopes: ['products:read', 'sboms:read'],
      key: { id: team.keyId, name: team.keyName },
    });
    expect(json.json.key.expiresAt).toEqual(expect.any(String));
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(team.teamId);
    expect(human.stdout).toContain('products:read, sboms:read');
  });
});

describe('vexdesk verify', () => {
  async function publishedDisclosure() {
    const team = await createTeamWithKey();
    const seeded = await seedReleaseWithFindings(team.api, team.teamId, 2);
    await team.api.post('/api/dispositions', {
      vulnerabilityId: seeded.findings[0]!.id,
      status: 'not_affected',
      justification: 'component_not_present',
    });
    const document = (
      await team.api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'openvex', author: 'PSIRT' })
    ).body.data;
    await team.api.post(`/api/vex/${document.id}/submit`, { comment: 'ready' });
    await team.api.post(`/api/vex/${document.id}/approve`, {});
    const published = await team.api.post(`/api/vex/${document.id}/publish`, {});
    if (published.status !== 200) throw new Error(`publish failed: ${published.status} ${published.text}`);
    return { slug: published.body.disclosure.public_slug as string, teamId: team.teamId };
  }

  /** The team's key file and current fingerprint, as a customer would fetch them once and keep them. */
  async function publisherKeys(teamId: string) {
    const [armored, listed] = await Promise.all([
      fetch(`${baseUrl()}/api/disclosures/publishers/${teamId}/keys?format=asc`).then((response) => response.text()),
      fetch(`${baseUrl()}/api/disclosures/publishers/${teamId}/keys`).then(
        (response) => response.json() as Promise<{ data: { fingerprint: string }[] }>,
      ),
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'vexdesk-keys-')), `${teamId}.asc`);
    writeFileSync(file, armored);
    return { file, fingerprint: listed.data[0]!.fingerprint };
  }

  it("checks the raw bytes' hash and the OpenPGP signature against the publisher's listed key, by slug or by URL", async () => {
    const { slug, teamId } = await publishedDisclosure();
    const { fingerprint } = await publisherKeys(teamId);

    const bySlug = await vexdesk(['verify', slug, '--json'], { VEXDESK_URL: baseUrl() });
    const byUrl = await vexdesk(['verify', `${baseUrl()}/api/disclosures/${slug}?format=raw`]);

    expect(bySlug.code).toBe(0);
    expect(bySlug.json).toMatchObject({
      slug,
      content_hash_valid: true,
      hmac_signature: { signed: true, valid: true, checked_by: 'service' },
      public_key_signature: {
        checked: true,
        valid: true,
        key_fingerprint: fingerprint,
        key_source: 'service',
        fingerprint_pinned: null,
      },
    });
    expect(bySlug.json.computed_hash).toBe(bySlug.json.content_hash);
    expect(byUrl.code).toBe(0);
    expect(byUrl.stdout).toMatch(/content hash\s+OK/);
    expect(byUrl.stdout).toMatch(new RegExp(`OpenPGP signature\\s+valid: key ${fingerprint}`));
    expect(byUrl.stdout).toContain('compare its fingerprint with one the publisher states elsewhere');
  });

  it("verifies offline against a pinned key file and fingerprint, and fails on another publisher's key or fingerprint", async () => {
    const [ours, theirs] = await Promise.all([publishedDisclosure(), publishedDisclosure()]);
    const [ourKeys, theirKeys] = await Promise.all([publisherKeys(ours.teamId), publisherKeys(theirs.teamId)]);
    // gpg prints fingerprints in groups of four.
    const spaced = ourKeys.fingerprint.replace(/(.{4})/g, '$1 ').trim();

    const pinned = await vexdesk(['verify', ours.slug, '--key', ourKeys.file, '--fingerprint', spaced, '--json'], {
      VEXDESK_URL: baseUrl(),
    });
    const wrongKeyFile = await vexdesk(['verify', ours.slug, '--key', theirKeys.file, '--json'], {
      VEXDESK_URL: baseUrl(),
    });
    const wrongFingerprint = await vexdesk(['verify', ours.slug, '--fingerprint', theirKeys.fingerprint], {
      VEXDESK_URL: baseUrl(),
    });
    const badFingerprint = await vexdesk(['verify', ours.slug, '--fingerprint', 'not-hex'], { VEXDESK_URL: baseUrl() });

    expect(pinned.code).toBe(0);
    expect(pinned.json.public_key_signature).toEqual({
      checked: true,
      valid: true,
      key_fingerprint: ourKeys.fingerprint,
      key_source: 'file',
      fingerprint_pinned: ourKeys.fingerprint,
      fingerprint_matches: true,
    });
    expect(wrongKeyFile.code).toBe(1);
    expect(wrongKeyFile.json).toMatchObject({
      content_hash_valid: true,
      public_key_signature: { checked: true, valid: false, key_fingerprint: null, key_source: 'file' },
    });
    expect(wrongFingerprint.code).toBe(1);
    expect(wrongFingerprint.stdout).toContain(`NOT the pinned ${theirKeys.fingerprint}`);
    expect(badFingerprint.code).toBe(2);
    expect(badFingerprint.stderr).toContain('--fingerprint must be an OpenPGP fingerprint');
  });

  it('exits 1 when the stored bytes no longer match the published hash or signature, 3 for an unknown disclosure', async () => {
    const { slug } = await publishedDisclosure();
    const disclosure = await Disclosures.get(slug);
    // What tampering with the bucket behind the service would leave (Object Lock prevents it on AWS).
    await (
      await s3Client()
    ).send(
      new PutObjectCommand({
        Bucket: config().disclosureBucket,
        Key: disclosure.objectKey,
        Body: Buffer.from('{"tampered":true}'),
      }),
    );

    const tampered = await vexdesk(['verify', slug, '--json'], { VEXDESK_URL: baseUrl() });
    const unknown = await vexdesk(['verify', 'no-such-disclosure'], { VEXDESK_URL: baseUrl() });

    expect(tampered.code).toBe(1);
    expect(tampered.json.content_hash_valid).toBe(false);
    expect(tampered.json.public_key_signature).toMatchObject({ checked: true, valid: false });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('404');
  });
});
