/** The rules of toSarif and rawUploadRequest that the integration tests' real data may not reach. */
import { gunzipSync } from 'node:zlib';
import { toSarif } from '../../shared/client/sarif';
import { rawUploadRequest, sbomContentType } from '../../shared/client/upload-body';
import { sbomVulnerabilitySchema, type SbomVulnerability } from '../../shared/service/schemas/sboms';

const TOOL = { sbomPath: 'sbom.json', serviceUrl: 'https://vexdesk.example.com/', toolVersion: '0.1.0' };

function finding(overrides: Partial<SbomVulnerability> = {}): SbomVulnerability {
  return sbomVulnerabilitySchema.parse({
    id: 'f1',
    cve_id: 'CVE-2021-44228',
    advisory_id: 'GHSA-jfh8-c2jp-5v3q',
    aliases: ['CVE-2021-44228'],
    summary: 'Remote code injection in Log4j',
    component_name: 'log4j-core',
    component_version: '2.14.1',
    component_purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
    component_ref: 'ref-1',
    severity: 'CRITICAL',
    severity_source: 'cvss_v3',
    severity_source_id: 'GHSA-jfh8-c2jp-5v3q',
    cvss_v3_score: 10,
    cvss_v3_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
    cvss_v2_score: null,
    cvss_v2_vector: null,
    cvss_v4_score: null,
    cvss_v4_vector: null,
    epss_score: 0.9447,
    epss_percentile: 0.9998,
    is_kev: true,
    kev: { dateAdded: '2021-12-10', dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known' },
    cwes: ['CWE-502'],
    affected_versions: ['>=2.13.0 <2.15.0'],
    fixed_versions: ['2.15.0'],
    match_confidence: 'exact',
    match_evidence: { kind: 'purl', value: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' },
    first_detected_at: '2026-01-01T00:00:00.000Z',
    detected_by: 'scan',
    last_seen_at: '2026-01-01T00:00:00.000Z',
    state: 'open',
    resolved_at: null,
    resolved_reason: null,
    no_longer_detected: false,
    kev_added_at: '2026-01-01T00:00:00.000Z',
    informational: null,
    ...overrides,
  });
}

const ruleOf = (input: SbomVulnerability) => toSarif({ findings: [input], ...TOOL }).runs[0]!.tool.driver.rules![0]!;

describe('toSarif rules', () => {
  it("takes security-severity from the score the severity came from, inside the severity's band", () => {
    expect(ruleOf(finding()).properties!['security-severity']).toBe('10.0');
    // CVSS v2 has no critical: a 10.0 is HIGH, which GitHub would band as critical.
    expect(
      ruleOf(finding({ severity: 'HIGH', severity_source: 'cvss_v2', cvss_v3_score: null, cvss_v2_score: 10 }))
        .properties!['security-severity'],
    ).toBe('8.0');
    expect(
      ruleOf(finding({ severity: 'MEDIUM', severity_source: 'advisory', cvss_v3_score: null })).properties![
        'security-severity'
      ],
    ).toBe('5.5');
    expect(
      ruleOf(finding({ severity: 'NONE', severity_source: null, cvss_v3_score: null })).properties![
        'security-severity'
      ],
    ).toBe('0.0');
  });

  it('makes one result of the same package listed twice (purl qualifiers differ), naming both purls', () => {
    const log = toSarif({
      findings: [
        finding(),
        finding({
          id: 'f2',
          component_ref: 'ref-2',
          component_purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar',
        }),
      ],
      ...TOOL,
    });
    const results = log.runs[0]!.results!;
    expect(results).toHaveLength(1);
    expect(results[0]!.locations![0]!.logicalLocations!.map((location) => location.fullyQualifiedName)).toEqual([
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar',
    ]);
    expect(results[0]!.properties!.findingIds).toEqual(['f1', 'f2']);
  });

  it('writes the SBOM path as a relative URI reference', () => {
    const uriOf = (sbomPath: string) =>
      toSarif({ findings: [finding()], ...TOOL, sbomPath }).runs[0]!.results![0]!.locations![0]!.physicalLocation!
        .artifactLocation!.uri;
    expect(uriOf('./build/sbom.cdx.json')).toBe('build/sbom.cdx.json');
    expect(uriOf('build\\reports\\bom 1.json')).toBe('build/reports/bom%201.json');
    expect(uriOf('a/b?c#d.json')).toBe('a/b%3Fc%23d.json');
  });

  it('does not suppress a decision that does not count, or one that says the product is affected', () => {
    const decision = {
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      response: null,
      justification: 'component_not_present' as const,
      expires_at: null,
      review_required: false,
      carried_from: null,
      imported_from: null,
    };
    const suppressed = (disposition: SbomVulnerability['disposition']) =>
      toSarif({ findings: [finding({ disposition })], ...TOOL }).runs[0]!.results![0]!.suppressions;
    expect(
      suppressed({
        ...decision,
        status: 'not_affected',
        decision_state: 'carried',
        carried_from: { release_id: 'r', release_version: '1.0.0', disposition_id: 'd' },
      }),
    ).toEqual([
      {
        kind: 'external',
        status: 'accepted',
        justification:
          'Vexdesk decision: not_affected; justification: component_not_present; carried from release 1.0.0',
        guid: decision.id,
      },
    ]);
    expect(
      suppressed({ ...decision, status: 'not_affected', decision_state: 'review_required', review_required: true }),
    ).toBeUndefined();
    expect(suppressed({ ...decision, status: 'not_affected', decision_state: 'expired' })).toBeUndefined();
    expect(suppressed({ ...decision, status: 'under_investigation', decision_state: 'decided' })).toBeUndefined();
  });
});

describe('rawUploadRequest', () => {
  it('gzips the file as it is and names its media type from its first bytes', () => {
    const xml = Buffer.from('<?xml version="1.0"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/1.5"/>');
    const request = rawUploadRequest({ bytes: xml, fileName: 'bom.xml' }, 'release-id');
    expect(request.query).toEqual({ releaseId: 'release-id', fileName: 'bom.xml' });
    expect(request.headers).toEqual({ 'Content-Type': 'application/vnd.cyclonedx+xml', 'Content-Encoding': 'gzip' });
    expect(gunzipSync(request.body).equals(xml)).toBe(true);
    expect(request.fileBytes).toBe(xml.length);
    expect(sbomContentType(Buffer.from('\uFEFF  {"bomFormat": "CycloneDX"}'))).toBe('application/vnd.cyclonedx+json');
    expect(sbomContentType(Buffer.from('{"spdxVersion": "SPDX-2.3"}'))).toBe('application/spdx+json');
    expect(sbomContentType(Buffer.from('{"other": 1}'))).toBe('application/json');
    expect(sbomContentType(Buffer.from('SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\n'))).toBe('text/spdx');
  });
});
