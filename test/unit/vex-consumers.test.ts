/**
 * Each consumer's VEX matching rule (ported in test/support/vex-consumers.ts from the file named
 * in each test) applied to documents the generators make: what the vendor stated not_affected or
 * fixed is hidden, nothing else is. Sources:
 *   Trivy            aquasecurity/trivy pkg/vex/cyclonedx.go, openvex.go, csaf.go, vex.go (reachRoot)
 *   Grype            anchore/grype grype/vex/openvex/implementation.go, grype/vex/csaf/csaf.go + implementation.go
 *   go-vex           openvex/go-vex pkg/vex/functions_documents.go (Statement/Component.Matches, PurlMatches)
 *   discovery        openvex/discovery pkg/oci (GenerateReferenceIdentifiers: Grype's image identifiers)
 *   gocsaf           gocsaf/csaf csaf/advisory.go (LoadAdvisory: strict parse + Validate), util.go
 *   Dependency-Track DependencyTrack/dependency-track parser/cyclonedx/CycloneDXVexImporter.java,
 *                    model/Vulnerability.java (Source enum); CycloneDX/cyclonedx-core-java util/ObjectLocator.java
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseSbom } from '../../shared/service/sbom/parse';
import { generateCsaf, generateCycloneDxVex, generateOpenVex } from '../../shared/service/vex/formats';
import type { VexComponent, VexFinding, VexGenerationInput } from '../../shared/service/vex/model';
import { baseVexInput, vexDisposition, vexFinding } from '../bench/vex-generation';
import { runCsafMandatoryTests, runCsafOptionalTests, vexSchemaValidator } from '../support/schema-validation';
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

const SBOM_ID = 'd3b07384-d9a0-4c9b-8f1e-6a3b5c7d9e0f';
const SERIAL = 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79';
const DIGEST = 'sha256:' + 'ab'.repeat(32);
const RELEASE_PURL = `pkg:oci/widget@${encodeURIComponent(DIGEST)}?repository_url=ghcr.io/acme/widget`;

/** Components as an SBOM names them: bom-refs with characters BOM-Links must escape, purls with qualifiers. */
const COMPONENTS: VexComponent[] = [
  {
    ref: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.1?type=jar',
    name: 'log4j-core',
    version: '2.12.1',
    purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.1?type=jar',
    cpes: [],
    sbomId: SBOM_ID,
  },
  {
    ref: 'ref with space+plus%25',
    name: 'openssl',
    version: '3.0.8-r0',
    purl: 'pkg:apk/alpine/openssl@3.0.8-r0?arch=x86_64&distro=3.17.3',
    cpes: [],
    sbomId: SBOM_ID,
  },
  { ref: 'c3', name: 'minimist', version: '1.2.5', purl: 'pkg:npm/minimist@1.2.5', cpes: [], sbomId: SBOM_ID },
];
const [LOG4J, OPENSSL, MINIMIST] = COMPONENTS as [VexComponent, VexComponent, VexComponent];

function finding(
  id: string,
  component: VexComponent,
  cve: string | null,
  advisory: string | null,
  disposition: VexFinding['disposition'],
): VexFinding {
  return vexFinding({
    id,
    componentRef: component.ref,
    cveId: cve,
    advisoryId: advisory,
    aliases: advisory && cve ? [advisory] : [],
    disposition,
  });
}

/** not_affected on log4j and openssl for one CVE (same assertion), affected on minimist for it; fixed; untriaged; a non-CVE advisory. */
function input(overrides: Partial<VexGenerationInput['release']> = {}): VexGenerationInput {
  const notAffected = vexDisposition({ status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path' });
  return baseVexInput({
    release: { id: '9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', version: '2.4.1', purl: RELEASE_PURL, ...overrides },
    sboms: [
      {
        id: SBOM_ID,
        format: 'CycloneDX',
        specVersion: '1.5',
        fileHash: 'ab'.repeat(32),
        serialNumber: SERIAL,
        bomVersion: 2,
      },
    ],
    components: COMPONENTS,
    findings: [
      finding('f1', LOG4J, 'CVE-2021-44228', 'GHSA-jfh8-c2jp-5v3q', notAffected),
      finding('f2', OPENSSL, 'CVE-2021-44228', null, notAffected),
      finding('f3', MINIMIST, 'CVE-2021-44228', null, vexDisposition({ status: 'affected', response: 'update' })),
      finding('f4', MINIMIST, 'CVE-2021-44906', null, vexDisposition({ status: 'fixed' })),
      finding('f5', OPENSSL, 'CVE-2023-0286', null, null),
      finding(
        'f6',
        LOG4J,
        null,
        'GHSA-7rjr-3q55-vv33',
        vexDisposition({ status: 'not_affected', justification: 'component_not_present' }),
      ),
    ],
  });
}

/** What each scanner detects in the scanned artifact (its own purls, with qualifiers the SBOM may not have). */
const DETECTED: Array<Detected & { hidden: boolean }> = [
  { vulnerabilityId: 'CVE-2021-44228', purl: LOG4J.purl!, bomRef: LOG4J.ref, hidden: true },
  { vulnerabilityId: 'CVE-2021-44228', purl: OPENSSL.purl!, bomRef: OPENSSL.ref, hidden: true },
  { vulnerabilityId: 'CVE-2021-44228', purl: MINIMIST.purl!, bomRef: MINIMIST.ref, hidden: false },
  { vulnerabilityId: 'CVE-2021-44906', purl: MINIMIST.purl!, bomRef: MINIMIST.ref, hidden: true },
  { vulnerabilityId: 'CVE-2023-0286', purl: OPENSSL.purl!, bomRef: OPENSSL.ref, hidden: false },
];

describe('Trivy applies the CycloneDX VEX (pkg/vex/cyclonedx.go)', () => {
  it('affects[].ref are BOM-Links to the uploaded SBOM (serial + version), resolved to the bom-refs, even with characters a link must escape', () => {
    const doc = generateCycloneDxVex(input());
    for (const v of doc.vulnerabilities)
      for (const a of v.affects) expect(parseBomLink(a.ref)).toMatchObject({ serialNumber: SERIAL, version: 2 });
    const refs = doc.vulnerabilities.flatMap((v) => v.affects.map((a) => parseBomLink(a.ref)?.reference));
    expect(new Set(refs)).toEqual(new Set(COMPONENTS.map((c) => c.ref)));
  });

  it('hides exactly the not_affected / fixed findings when the scanned SBOM is the one the VEX names', () => {
    const doc = generateCycloneDxVex(input());
    // CVE-2021-44228 has mixed assertions (two components not_affected, one affected); CycloneDX holds one analysis
    // per entry and Trivy reads one entry per id, so the entry states "exploitable" and hides none of them.
    const hiddenInCycloneDx = (d: Detected & { hidden: boolean }) => d.hidden && d.vulnerabilityId !== 'CVE-2021-44228';
    for (const d of DETECTED)
      expect([
        d.vulnerabilityId,
        d.purl,
        trivyCycloneDx(doc, { serialNumber: SERIAL, version: 2 }, d) !== null,
      ]).toEqual([d.vulnerabilityId, d.purl, hiddenInCycloneDx(d)]);
  });

  it('a vulnerability whose components all share one assertion hides all of them', () => {
    const uniform = input();
    uniform.findings = uniform.findings.filter((f) => f.id !== 'f3'); // drop the affected minimist
    const doc = generateCycloneDxVex(uniform);
    for (const d of DETECTED.slice(0, 2))
      expect(trivyCycloneDx(doc, { serialNumber: SERIAL, version: 2 }, d)).toBe('not_affected');
  });

  it('one entry per vulnerability id: the entry Trivy finds first lists every component of the id', () => {
    const doc = generateCycloneDxVex(input());
    const ids = doc.vulnerabilities.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Mixed assertions for CVE-2021-44228: the least reassuring (affected) is the entry's state, so nothing is hidden
    // for it by this format; each component's own status stays in affects[].versions.
    const log4shell = doc.vulnerabilities.find((v) => v.id === 'CVE-2021-44228')!;
    expect(log4shell.affects).toHaveLength(3);
    expect(log4shell.analysis.state).toBe('exploitable');
  });

  it('applies nothing to another SBOM, or to another version of the same SBOM', () => {
    const doc = generateCycloneDxVex(input());
    const d = DETECTED[3]!;
    expect(trivyCycloneDx(doc, { serialNumber: SERIAL, version: 2 }, d)).toBe('fixed');
    expect(trivyCycloneDx(doc, { serialNumber: SERIAL, version: 3 }, d)).toBeNull();
    expect(
      trivyCycloneDx(doc, { serialNumber: 'urn:uuid:00000000-0000-4000-8000-000000000000', version: 2 }, d),
    ).toBeNull();
  });

  it('without a serial number in the SBOM the refs stay plain bom-refs (no BOM-Link can be made)', () => {
    const plain = input();
    plain.sboms = [{ ...plain.sboms[0]!, serialNumber: null, bomVersion: null }];
    const doc = generateCycloneDxVex(plain);
    expect(
      doc.vulnerabilities.flatMap((v) => v.affects.map((a) => a.ref)).every((ref) => parseBomLink(ref) === null),
    ).toBe(true);
  });
});

describe('Dependency-Track applies the CycloneDX VEX (CycloneDXVexImporter.java)', () => {
  const project = DETECTED.map((d) => ({
    source: 'NVD',
    vulnId: d.vulnerabilityId,
    component: { purl: d.purl, name: '', version: '' },
  }));

  it('every affects ref is located inside the VEX (embedded component with that exact bom-ref), never applied to the whole project', () => {
    const doc = generateCycloneDxVex(input());
    const bomRefs = new Set(doc.components.map((c) => c['bom-ref']));
    for (const v of doc.vulnerabilities) for (const a of v.affects) expect(bomRefs.has(a.ref)).toBe(true);
  });

  it('writes the analysis of each entry to exactly the components it names, with Dependency-Track source names', () => {
    const doc = generateCycloneDxVex(input());
    const applied = dependencyTrackApplyVex(doc, [
      ...project,
      { source: 'GITHUB', vulnId: 'GHSA-7rjr-3q55-vv33', component: { purl: LOG4J.purl!, name: '', version: '' } },
    ]);
    expect(applied.get(`CVE-2021-44906 ${MINIMIST.purl!}`)).toBe('resolved');
    expect(applied.get(`GHSA-7rjr-3q55-vv33 ${LOG4J.purl!}`)).toBe('not_affected');
    // A component the entry does not name gets nothing (an unresolved BOM-Link would have hit all of them).
    const other = dependencyTrackApplyVex(doc, [
      { source: 'NVD', vulnId: 'CVE-2021-44906', component: { purl: 'pkg:npm/other@1.0.0', name: '', version: '' } },
    ]);
    expect(other.size).toBe(0);
  });
});

describe('OpenVEX identifiers match Trivy and Grype (go-vex Component.Matches / PurlMatches)', () => {
  it('Trivy (image scan, root purl with its own qualifiers) hides exactly the not_affected / fixed findings', () => {
    const doc = generateOpenVex(input());
    const trivyRoot = `pkg:oci/widget@${encodeURIComponent(DIGEST)}?arch=amd64&repository_url=index.docker.io%2Facme%2Fwidget`;
    for (const d of DETECTED) {
      // Trivy's own purls for the packages carry other qualifiers than the SBOM (e.g. no `type=jar`, an added `distro`).
      const scanned = { ...d, purl: d.purl.split('?')[0]! };
      expect([d.vulnerabilityId, d.purl, trivyOpenVex(doc, trivyRoot, scanned) !== null]).toEqual([
        d.vulnerabilityId,
        d.purl,
        d.hidden,
      ]);
    }
  });

  it('Grype (image identifiers from openvex/discovery: repository_url=index.docker.io/<org>/<name>, bare digest) hides the same', () => {
    const doc = generateOpenVex(input());
    const identifiers = grypeImageIdentifiers({
      registry: 'index.docker.io',
      repository: 'acme/widget',
      digest: DIGEST,
      tag: '2.4.1',
      os: 'linux',
      arch: 'amd64',
    });
    expect(identifiers[0]).toContain('repository_url=index.docker.io%2Facme%2Fwidget');
    for (const d of DETECTED)
      expect([d.vulnerabilityId, d.purl, grypeOpenVex(doc, identifiers, d) !== null]).toEqual([
        d.vulnerabilityId,
        d.purl,
        d.hidden,
      ]);
  });

  it('Grype matches an image only by digest when the purl names another repository', () => {
    const doc = generateOpenVex(input());
    expect(grypeOpenVex(doc, [DIGEST.slice('sha256:'.length)], DETECTED[0]!)).toBe('not_affected');
    expect(grypeOpenVex(doc, ['0'.repeat(64)], DETECTED[0]!)).toBeNull();
  });

  it('a non-CVE advisory is matched by its alias too (go-vex Vulnerability.Matches)', () => {
    const doc = generateOpenVex(input());
    const root = RELEASE_PURL;
    expect(trivyOpenVex(doc, root, { vulnerabilityId: 'GHSA-jfh8-c2jp-5v3q', purl: LOG4J.purl! })).toBe('not_affected');
  });
});

describe('CSAF: Trivy, Grype and the strict parse (pkg/vex/csaf.go, grype/vex/csaf, gocsaf LoadAdvisory)', () => {
  it('passes gocsaf LoadAdvisory (the strict parse Grype runs before using a CSAF file)', () => {
    expect(gocsafLoadAdvisory(generateCsaf(input()))).toEqual([]);
  });

  it('every vulnerability has a cve (Trivy dereferences it for every entry): Trivy does not crash, and hides the right findings', () => {
    const doc = generateCsaf(input());
    expect(doc.vulnerabilities.every((v) => typeof v.cve === 'string')).toBe(true);
    for (const d of DETECTED)
      expect([d.vulnerabilityId, d.purl, trivyCsaf(doc, RELEASE_PURL, d) !== null]).toEqual([
        d.vulnerabilityId,
        d.purl,
        d.hidden,
      ]);
  });

  it('Trivy panics on a vulnerability without cve (the rule the generator avoids)', () => {
    const doc = generateCsaf(input());
    const broken = {
      ...doc,
      vulnerabilities: [...doc.vulnerabilities, { ...doc.vulnerabilities[0]!, cve: undefined }],
    };
    expect(() => trivyCsaf(broken, RELEASE_PURL, { vulnerabilityId: 'CVE-1999-0001', purl: 'pkg:npm/x@1' })).toThrow(
      /nil pointer/,
    );
  });

  it('Grype resolves the status list product ids to the package purl (exact string) and finds each statement', () => {
    const doc = generateCsaf(input());
    for (const d of DETECTED) {
      const status = grypeCsaf(doc, d);
      expect(status).not.toBeNull();
      expect(
        d.hidden
          ? /^(known_not_affected|fixed)$/.test(status!)
          : /^(known_affected|under_investigation)$/.test(status!),
      ).toBe(true);
    }
  });

  it('the relationship model stays: statuses name "component as part of the release" products', () => {
    const doc = generateCsaf(input());
    const relationshipIds = new Set(doc.product_tree.relationships!.map((r) => r.full_product_name.product_id));
    for (const v of doc.vulnerabilities)
      for (const ids of Object.values(v.product_status))
        for (const id of ids ?? []) expect(relationshipIds.has(id)).toBe(true);
  });

  it('passes the schema, every mandatory test, and optional test 6.2.11 (canonical self URL) when a canonical URL is given', async () => {
    const withUrl = input();
    withUrl.document = {
      ...withUrl.document,
      canonicalUrl: `https://vexdesk.example/csaf/team/white/2026/${withUrl.document.id.toLowerCase()}.json`,
    };
    const doc = generateCsaf(withUrl);
    expect(vexSchemaValidator().csaf(doc).errors).toEqual([]);
    expect((await runCsafMandatoryTests(doc)).failures).toEqual([]);
    const optional = await runCsafOptionalTests(doc);
    expect(optional.warnings.filter((w) => w.test === 'optionalTest_6_2_11')).toEqual([]);
    const without = await runCsafOptionalTests(generateCsaf(input()));
    expect(without.warnings.map((w) => w.test)).toContain('optionalTest_6_2_11');
  });

  it('CWE names from the shipped catalogue satisfy mandatory test 6.1.11', async () => {
    const { cweNames } = await import('../../shared/service/vex/cwe-names');
    const names = await cweNames(['CWE-79', 'CWE-502', 'CWE-999999']);
    expect(names['CWE-79']).toMatch(/Cross-site Scripting/);
    expect(names['CWE-999999']).toBeUndefined();
    const withCwe = input();
    withCwe.findings = withCwe.findings.map((f) => ({ ...f, cwes: ['CWE-502'] }));
    withCwe.cweNames = names;
    const doc = generateCsaf(withCwe);
    expect(doc.vulnerabilities[0]!.cwe).toEqual({ id: 'CWE-502', name: names['CWE-502'] });
    expect((await runCsafMandatoryTests(doc)).failures).toEqual([]);
  });
});

describe('the BOM-Link target is carried at upload (parseSbom → SBOM item)', () => {
  const fixture = (name: string) => readFileSync(new URL(`../fixtures/sboms/${name}`, import.meta.url));

  it.each([
    [
      'cyclonedx-1.5_maven_cdxgen_vuln-spring.json',
      { serialNumber: 'urn:uuid:a24f1514-4392-4a5b-93a7-90468b3a4db8', version: 1 },
    ],
    [
      'cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml',
      { serialNumber: 'urn:uuid:ac0cd9c0-3333-4921-9d21-c5a6ccdce0c1', version: 1 },
    ],
  ])('%s: serialNumber and version', (name, identity) => {
    expect(parseSbom(fixture(name), name).bomIdentity).toEqual(identity);
  });

  it('SPDX and CycloneDX without a serial number carry none', () => {
    expect(parseSbom(fixture('handmade_spdx-2.3_flat-describes-log4j.json'), 'x.json').bomIdentity ?? null).toBeNull();
    expect(
      parseSbom(fixture('cyclonedx-1.6_npm_cyclonedx-npm_demo-bundled-deps.json'), 'x.json').bomIdentity ?? null,
    ).toBeNull();
  });
});
