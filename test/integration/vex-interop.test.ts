/**
 * Issue 11 items 3 and 4 through the real server: VEX documents generated from two fixture SBOMs
 * (a CycloneDX one with a serialNumber, an SPDX one) are applied with each consumer's matching
 * rule (test/support/vex-consumers.ts, ported from Trivy, Grype, go-vex, gocsaf and
 * Dependency-Track); and several formats are submitted and published for one locked release.
 */
import { describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PackageURL } from 'packageurl-js';
import { importAdvisories } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { listAll, seedReleaseWithFindings } from '../support/seed';
import { vexSchemaValidator } from '../support/schema-validation';
import {
  dependencyTrackApplyVex,
  gocsafLoadAdvisory,
  grypeCsaf,
  grypeImageIdentifiers,
  grypeOpenVex,
  parseBomLink,
  trivyCsaf,
  trivyCycloneDx,
  trivyOpenVex,
  type Detected,
} from '../support/vex-consumers';

const FIXTURES = new URL('../fixtures/sboms/', import.meta.url);
type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];
interface Row {
  id: string;
  cve_id: string;
  component_name: string;
  component_purl: string | null;
  component_version: string | null;
}

/** Synthetic advisories (unique CVE ids) for the given maven purls, so the real scan finds exactly them among the fixture's components. */
async function advisoriesFor(purls: string[]): Promise<Map<string, string>> {
  const base = randomInt(1_000_000, 9_000_000);
  const cveByPurl = new Map<string, string>();
  await importAdvisories(
    purls.map((purl, index) => {
      const p = PackageURL.fromString(purl);
      const cve = `CVE-2091-${base + index}`;
      cveByPurl.set(purl, cve);
      return {
        source: 'seed',
        advisory: parseOsvAdvisory({
          id: cve,
          modified: new Date().toISOString(),
          summary: `Interop issue ${index}`,
          details: 'Interop',
          affected: [
            {
              package: { ecosystem: 'Maven', name: `${p.namespace}:${p.name}` },
              versions: [p.version],
              ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '999.0.0' }] }],
            },
          ],
        }),
      };
    }),
  );
  return cveByPurl;
}

/** Uploads a fixture to a fresh release named by `releasePurl`, scans it and triages the three synthetic findings. */
async function triagedFixture(fixture: string, pick: (purls: string[]) => string[], releasePurl: string) {
  const team = await createTeamWithKey();
  const api: Api = team.api;
  const original = readFileSync(new URL(fixture, FIXTURES), 'utf8');
  const purls = [...original.matchAll(/pkg:maven\/[^"\s]+/g)]
    .map((m) => m[0])
    .filter((v, i, all) => all.indexOf(v) === i);
  // The picked packages get a namespace of this run's own: the synthetic advisories then name no real
  // package, so no other test's SBOM of the same fixture meets them (the corpus is shared, and it is watched).
  const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
  const own = (purl: string) =>
    purl.replace(/^pkg:maven\/([^/]+)\//, (_match, namespace: string) => `pkg:maven/${namespace}.interop${suffix}/`);
  const picked = pick(purls);
  const content = picked.reduce((text, purl) => text.replaceAll(purl, own(purl)), original);
  const [notAffected, fixed, affected] = picked.map(own) as [string, string, string];
  const cves = await advisoriesFor([notAffected, fixed, affected]);
  const product = (
    await api.post('/api/products', { name: 'Interop', slug: uniqueSlug('interop'), vendor: 'ACME Corp' })
  ).body.data;
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0', purl: releasePurl })).body
    .data;
  const upload = await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName: fixture });
  expect(upload.status).toBe(201);
  const sbom = upload.body.data;
  expect((await api.post('/api/cve-scan', { sbomId: sbom.id })).status).toBe(202);
  const rows = await listAll<Row>(api, `/api/sboms/${sbom.id}/vulnerabilities`);
  const row = (purl: string) => {
    const found = rows.find((r) => r.cve_id === cves.get(purl));
    if (!found) throw new Error(`no finding for ${purl}`);
    return found;
  };
  expect(
    (
      await api.post('/api/dispositions', {
        vulnerabilityId: row(notAffected).id,
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
      })
    ).status,
  ).toBeLessThan(300);
  expect(
    (await api.post('/api/dispositions', { vulnerabilityId: row(fixed).id, status: 'fixed' })).status,
  ).toBeLessThan(300);
  expect(
    (await api.post('/api/dispositions', { vulnerabilityId: row(affected).id, status: 'affected', response: 'update' }))
      .status,
  ).toBeLessThan(300);
  const generate = async (format: string) => {
    const response = await api.post(`/api/releases/${release.id}/vex`, { format, sbomId: sbom.id });
    expect(response.status).toBe(201);
    expect(response.body.data.sbom_id).toBe(sbom.id);
    expect(vexSchemaValidator().validate(format as 'csaf', response.body.data.content).errors).toEqual([]);
    return response.body.data.content as unknown;
  };
  /** Every detected finding with whether the vendor's VEX must hide it (not_affected / fixed) or not. */
  const detected = rows.map((r): Detected & { hidden: boolean } => ({
    vulnerabilityId: r.cve_id,
    purl: r.component_purl ?? '',
    bomRef: r.component_purl ?? '',
    hidden: r.cve_id === cves.get(notAffected) || r.cve_id === cves.get(fixed),
  }));
  return { api, release, sbom, content, generate, detected, cves, notAffected, fixed, affected };
}

const hiddenBy = (rule: (d: Detected) => string | null, detected: Array<Detected & { hidden: boolean }>) =>
  detected.map((d) => [d.vulnerabilityId, d.purl, rule(d) !== null]);
const expected = (detected: Array<Detected & { hidden: boolean }>) =>
  detected.map((d) => [d.vulnerabilityId, d.purl, d.hidden]);

describe('VEX that consumers apply (fixture SBOMs through the server)', () => {
  it('CycloneDX SBOM with a serialNumber: Trivy, Dependency-Track (CycloneDX VEX), Trivy (OpenVEX) and Trivy/Grype (CSAF) hide exactly the not_affected and fixed findings', async () => {
    const fixture = 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json';
    const bom = JSON.parse(readFileSync(new URL(fixture, FIXTURES), 'utf8')) as {
      serialNumber: string;
      version: number;
      metadata: { component: { purl: string } };
    };
    // The release is the artifact the SBOM describes: `trivy sbom` uses its root component's purl as the product.
    const root = bom.metadata.component.purl;
    const ctx = await triagedFixture(fixture, (purls) => purls.filter((p) => p !== root).slice(0, 3), root);
    expect(ctx.detected.filter((d) => d.hidden)).toHaveLength(2);

    const cdx = (await ctx.generate('cyclonedx_vex')) as {
      vulnerabilities: Array<{ id: string; affects: Array<{ ref: string }> }>;
    };
    // BOM-Links name the uploaded SBOM: its serial number and version, carried at upload.
    for (const v of cdx.vulnerabilities)
      for (const a of v.affects)
        expect(parseBomLink(a.ref)).toMatchObject({ serialNumber: bom.serialNumber, version: bom.version });
    expect(
      hiddenBy((d) => trivyCycloneDx(cdx, { serialNumber: bom.serialNumber, version: bom.version }, d), ctx.detected),
    ).toEqual(expected(ctx.detected));

    const applied = dependencyTrackApplyVex(
      cdx,
      ctx.detected.map((d) => ({
        source: 'NVD',
        vulnId: d.vulnerabilityId,
        component: { purl: d.purl, name: '', version: '' },
      })),
    );
    expect(applied.get(`${ctx.cves.get(ctx.notAffected)!} ${ctx.notAffected}`)).toBe('not_affected');
    expect(applied.get(`${ctx.cves.get(ctx.fixed)!} ${ctx.fixed}`)).toBe('resolved');
    expect(applied.get(`${ctx.cves.get(ctx.affected)!} ${ctx.affected}`)).toBe('exploitable');
    // Each analysis lands on the component it names only.
    for (const key of applied.keys())
      expect(ctx.detected.some((d) => key === `${d.vulnerabilityId} ${d.purl}`)).toBe(true);

    const openvex = await ctx.generate('openvex');
    expect(hiddenBy((d) => trivyOpenVex(openvex, root, d), ctx.detected)).toEqual(expected(ctx.detected));

    const csaf = await ctx.generate('csaf');
    expect(gocsafLoadAdvisory(csaf)).toEqual([]);
    expect(hiddenBy((d) => trivyCsaf(csaf, root, d), ctx.detected)).toEqual(expected(ctx.detected));
    expect(
      hiddenBy((d) => (/^(known_not_affected|fixed)$/.test(grypeCsaf(csaf, d) ?? '') ? 'hidden' : null), ctx.detected),
    ).toEqual(expected(ctx.detected));
  });

  it('SPDX SBOM of an image: Grype (OpenVEX by the image identifiers, CSAF) and Trivy (OpenVEX, CSAF) hide exactly the not_affected and fixed findings', async () => {
    const digest = `sha256:${'5e'.repeat(32)}`;
    const releasePurl = `pkg:oci/log-service@${encodeURIComponent(digest)}?repository_url=ghcr.io/acme/log-service`;
    const ctx = await triagedFixture(
      'handmade_spdx-2.3_flat-describes-log4j.json',
      (purls) => purls.slice(0, 3),
      releasePurl,
    );

    const cdx = (await ctx.generate('cyclonedx_vex')) as {
      vulnerabilities: Array<{ affects: Array<{ ref: string }> }>;
    };
    // SPDX has no serial number: plain SPDXIDs, no BOM-Link (Trivy applies CycloneDX VEX to CycloneDX SBOMs only).
    expect(
      cdx.vulnerabilities.flatMap((v) => v.affects.map((a) => a.ref)).every((ref) => ref.startsWith('SPDXRef-')),
    ).toBe(true);

    const openvex = await ctx.generate('openvex');
    const grypeProducts = grypeImageIdentifiers({
      registry: 'index.docker.io',
      repository: 'acme/log-service',
      digest,
      tag: '1.0.0',
      os: 'linux',
      arch: 'amd64',
    });
    expect(hiddenBy((d) => grypeOpenVex(openvex, grypeProducts, d), ctx.detected)).toEqual(expected(ctx.detected));
    const trivyRoot = `pkg:oci/log-service@${encodeURIComponent(digest)}?arch=amd64&repository_url=index.docker.io%2Facme%2Flog-service`;
    expect(hiddenBy((d) => trivyOpenVex(openvex, trivyRoot, d), ctx.detected)).toEqual(expected(ctx.detected));

    const csaf = await ctx.generate('csaf');
    expect(gocsafLoadAdvisory(csaf)).toEqual([]);
    expect(hiddenBy((d) => trivyCsaf(csaf, trivyRoot, d), ctx.detected)).toEqual(expected(ctx.detected));
    expect(
      hiddenBy((d) => (/^(known_not_affected|fixed)$/.test(grypeCsaf(csaf, d) ?? '') ? 'hidden' : null), ctx.detected),
    ).toEqual(expected(ctx.detected));
  });

  it('refuses an sbomId that is not an SBOM of the release with 422', async () => {
    const team = await createTeamWithKey();
    const seeded = await seedReleaseWithFindings(team.api, team.teamId, 1);
    const other = await seedReleaseWithFindings(team.api, team.teamId, 1);
    const response = await team.api.post(`/api/releases/${seeded.release.id}/vex`, {
      format: 'openvex',
      sbomId: other.sbom.id,
    });
    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'sbomId' })]);
  });
});

async function lifecycle(api: Api, vexId: string): Promise<{ disclosure: { format: string; public_slug: string } }> {
  expect((await api.post(`/api/vex/${vexId}/submit`, {})).status).toBe(200);
  expect((await api.post(`/api/vex/${vexId}/approve`, {})).status).toBe(200);
  const published = await api.post(`/api/vex/${vexId}/publish`, {});
  expect(published.status).toBe(200);
  return published.body as { disclosure: { format: string; public_slug: string } };
}

describe('Several formats per release (the lock freezes decisions, not the format)', () => {
  it('publishes CycloneDX, then generates, submits, approves and publishes CSAF and OpenVEX for the same locked release; disposition writes stay refused', async () => {
    const team = await createTeamWithKey();
    const { api } = team;
    const seeded = await seedReleaseWithFindings(api, team.teamId, 3);
    await api.post('/api/dispositions', {
      vulnerabilityId: seeded.findings[0]!.id,
      status: 'not_affected',
      justification: 'component_not_present',
    });
    // Generated before the lock: may state older decisions.
    const early = (await api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'openvex' })).body.data;
    const cdx = (await api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'cyclonedx_vex' })).body.data;
    const first = await lifecycle(api, cdx.id);
    expect(first.disclosure.format).toBe('cyclonedx_vex');

    const stale = await api.post(`/api/vex/${early.id}/submit`, {});
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('release_locked');
    expect(stale.body.error.message).toContain('regenerate');

    const csaf = (await api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'csaf' })).body.data;
    const second = await lifecycle(api, csaf.id);
    expect(second.disclosure.format).toBe('csaf');
    expect((await api.post(`/api/vex/${early.id}/regenerate`)).status).toBe(200);
    const third = await lifecycle(api, early.id);
    expect(third.disclosure.format).toBe('openvex');

    const release = (await api.get(`/api/releases/${seeded.release.id}`)).body.data;
    expect(release).toMatchObject({ is_locked: true, locked_by_vex_id: cdx.id });
    const write = await api.post('/api/dispositions', { vulnerabilityId: seeded.findings[1]!.id, status: 'fixed' });
    expect(write.status).toBe(409);
    expect(write.body.error.code).toBe('release_locked');
    const batch = await api.post('/api/dispositions/batch', {
      vulnerabilityIds: [seeded.findings[2]!.id],
      status: 'fixed',
    });
    expect(batch.status).toBe(409);
    expect((await api.put(`/api/releases/${seeded.release.id}`, { name: 'late' })).status).toBe(409);
    const disclosures = [first, second, third].map((p) => p.disclosure.public_slug);
    for (const slug of disclosures) expect((await api.get(`/api/disclosures/${slug}`)).status).toBe(200);
  });

  it('rejecting the holder hands the lock to the joined document; the release unlocks only when none is left', async () => {
    const team = await createTeamWithKey();
    const { api } = team;
    const seeded = await seedReleaseWithFindings(api, team.teamId, 2);
    const holder = (await api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'cyclonedx_vex' })).body.data;
    expect((await api.post(`/api/vex/${holder.id}/submit`, {})).status).toBe(200);
    const joined = (await api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'csaf' })).body.data;
    expect((await api.post(`/api/vex/${joined.id}/submit`, {})).status).toBe(200);

    expect((await api.post(`/api/vex/${holder.id}/reject`, { comment: 'fix the author' })).status).toBe(200);
    expect((await api.get(`/api/releases/${seeded.release.id}`)).body.data).toMatchObject({
      is_locked: true,
      locked_by_vex_id: joined.id,
    });
    expect(
      (await api.post('/api/dispositions', { vulnerabilityId: seeded.findings[0]!.id, status: 'fixed' })).status,
    ).toBe(409);

    expect((await api.post(`/api/vex/${joined.id}/reject`, { comment: 'again' })).status).toBe(200);
    expect((await api.get(`/api/releases/${seeded.release.id}`)).body.data.is_locked).toBe(false);
    expect(
      (await api.post('/api/dispositions', { vulnerabilityId: seeded.findings[0]!.id, status: 'fixed' })).status,
    ).toBeLessThan(300);
  });

  it('unlock returns every submitted or approved document of the lock to draft', async () => {
    const team = await createTeamWithKey();
    const { api } = team;
    const seeded = await seedReleaseWithFindings(api, team.teamId, 1);
    const holder = (await api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'openvex' })).body.data;
    expect((await api.post(`/api/vex/${holder.id}/submit`, {})).status).toBe(200);
    const joined = (await api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'csaf' })).body.data;
    expect((await api.post(`/api/vex/${joined.id}/submit`, {})).status).toBe(200);
    expect((await api.post(`/api/vex/${joined.id}/approve`, {})).status).toBe(200);
    expect((await api.post(`/api/releases/${seeded.release.id}/unlock`, { comment: 'hotfix' })).status).toBe(200);
    for (const id of [holder.id, joined.id])
      expect((await api.get(`/api/vex/${id}`)).body.data.workflow_status).toBe('draft');
    const actions = (await api.get(`/api/vex/${joined.id}/approvals`)).body.data.map(
      (a: { action: string }) => a.action,
    );
    expect(actions).toEqual(['submit', 'approve', 'unlock']);
  });
});
