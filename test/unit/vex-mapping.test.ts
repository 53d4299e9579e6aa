/**
 * The mapping table of docs/vex-mapping.md, cell by cell: one single-finding release per
 * cell, rendered in all three formats, each document also schema-checked (and the CSAF
 * one run through the mandatory tests) so no cell can produce an invalid document.
 */
import { describe, expect, it } from '@jest/globals';
import {
  CYCLONEDX_JUSTIFICATION,
  CYCLONEDX_JUSTIFICATION_LOSSY,
  CSAF_REMEDIATION,
  generateCsaf,
  generateCycloneDxVex,
  generateOpenVex,
  type CsafVexDocument,
  type CycloneDxVexDocument,
  type OpenVexDocument,
} from '../../shared/service/vex/formats';
import type {
  DispositionResponse,
  VexDisposition,
  VexFinding,
  VexGenerationInput,
} from '../../shared/service/vex/model';
import { baseVexInput, vexDisposition, vexFinding } from '../bench/vex-generation';
import { runCsafMandatoryTests, vexSchemaValidator } from '../support/schema-validation';

const COMPONENT = {
  ref: 'pkg:npm/minimist@1.2.5',
  name: 'minimist',
  version: '1.2.5',
  purl: 'pkg:npm/minimist@1.2.5',
  cpes: [],
};

function single(disposition: VexDisposition | null, extra: Partial<VexFinding> = {}): VexGenerationInput {
  return baseVexInput({
    components: [COMPONENT],
    findings: [
      vexFinding({
        id: 'aaaaaaaa-0000-4000-8000-000000000001',
        componentRef: COMPONENT.ref,
        cveId: 'CVE-2021-44906',
        advisoryId: 'GHSA-xvch-5gv4-984h',
        aliases: ['GHSA-xvch-5gv4-984h'],
        summary: 'Prototype Pollution in minimist',
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8, severity: 'CRITICAL' },
        fixedVersions: ['1.2.6'],
        disposition,
        ...extra,
      }),
    ],
  });
}

interface Rendered {
  cdx: CycloneDxVexDocument;
  openvex: OpenVexDocument;
  csaf: CsafVexDocument;
}

async function render(input: VexGenerationInput): Promise<Rendered> {
  const rendered = { cdx: generateCycloneDxVex(input), openvex: generateOpenVex(input), csaf: generateCsaf(input) };
  const v = vexSchemaValidator();
  expect(v.cyclonedx(rendered.cdx).errors).toEqual([]);
  expect(v.openvex(rendered.openvex).errors).toEqual([]);
  expect(v.csaf(rendered.csaf).errors).toEqual([]);
  expect((await runCsafMandatoryTests(rendered.csaf)).failures).toEqual([]);
  return rendered;
}

function cdxVuln(r: Rendered) {
  expect(r.cdx.vulnerabilities).toHaveLength(1);
  return r.cdx.vulnerabilities[0]!;
}
function statement(r: Rendered) {
  expect(r.openvex.statements).toHaveLength(1);
  return r.openvex.statements[0]!;
}
function csafVuln(r: Rendered) {
  expect(r.csaf.vulnerabilities).toHaveLength(1);
  return r.csaf.vulnerabilities[0]!;
}
function property(r: Rendered, name: string): string[] {
  return (cdxVuln(r).properties ?? []).filter((p) => p.name === name).map((p) => p.value);
}

describe('status', () => {
  it.each([
    // [our status, CycloneDX state, CycloneDX version status, OpenVEX status, CSAF product_status group]
    ['affected', 'exploitable', 'affected', 'affected', 'known_affected'],
    ['not_affected', 'not_affected', 'unaffected', 'not_affected', 'known_not_affected'],
    ['fixed', 'resolved', 'unaffected', 'fixed', 'fixed'],
    ['under_investigation', 'in_triage', 'unknown', 'under_investigation', 'under_investigation'],
  ] as const)(
    '%s -> CycloneDX %s (component version %s), OpenVEX %s, CSAF %s',
    async (status, cdxState, versionStatus, ovStatus, csafGroup) => {
      const r = await render(
        single(
          vexDisposition({
            status,
            response: status === 'affected' ? 'update' : null,
            justification: status === 'not_affected' ? 'vulnerable_code_not_present' : null,
          }),
        ),
      );
      expect(cdxVuln(r).analysis.state).toBe(cdxState);
      expect(cdxVuln(r).affects).toEqual([
        {
          ref: COMPONENT.ref,
          versions: [
            { version: '1.2.5', status: versionStatus },
            { version: '1.2.6', status: 'unaffected' },
          ],
        },
      ]);
      expect(property(r, 'vexdesk:status')).toEqual([status]);
      expect(property(r, 'vexdesk:triaged')).toEqual([]);
      expect(statement(r).status).toBe(ovStatus);
      const productId = r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id;
      expect(csafVuln(r).product_status).toEqual({ [csafGroup]: [productId] });
    },
  );

  it('untriaged (no disposition) is published as under investigation everywhere, and says so', async () => {
    const r = await render(single(null));
    expect(cdxVuln(r).analysis.state).toBe('in_triage');
    expect(cdxVuln(r).analysis.detail).toBe('Matched by SBOM scan; not yet triaged.');
    expect(property(r, 'vexdesk:triaged')).toEqual(['false']);
    expect(statement(r).status).toBe('under_investigation');
    expect(statement(r).status_notes).toBe('Matched by SBOM scan; not yet triaged.');
    expect(statement(r).timestamp).toBe('2026-03-01T12:00:00.000Z'); // known since this generation
    expect(Object.keys(csafVuln(r).product_status)).toEqual(['under_investigation']);
    expect(csafVuln(r).notes.some((n) => n.category === 'details' && n.text.includes('not yet triaged'))).toBe(true);
  });
});

describe('justification (not_affected)', () => {
  it.each([
    // [ours = OpenVEX = CSAF flag, CycloneDX, lossy in CycloneDX]
    ['component_not_present', 'code_not_present', true],
    ['vulnerable_code_not_present', 'code_not_present', false],
    ['vulnerable_code_not_in_execute_path', 'code_not_reachable', false],
    ['vulnerable_code_cannot_be_controlled_by_adversary', 'requires_environment', true],
    ['inline_mitigations_already_exist', 'protected_by_mitigating_control', false],
  ] as const)('%s -> CycloneDX %s (lossy: %s)', async (justification, cdxJustification, lossy) => {
    expect(CYCLONEDX_JUSTIFICATION[justification]).toBe(cdxJustification);
    expect(CYCLONEDX_JUSTIFICATION_LOSSY[justification]).toBe(lossy);
    const r = await render(single(vexDisposition({ status: 'not_affected', justification })));
    expect(cdxVuln(r).analysis.justification).toBe(cdxJustification);
    // The original label always survives (needed to round-trip the lossy cells).
    expect(property(r, 'vexdesk:justification')).toEqual([justification]);
    expect(statement(r).justification).toBe(justification);
    expect(statement(r).impact_statement).toBeUndefined();
    const productId = r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id;
    expect(csafVuln(r).flags).toEqual([{ label: justification, product_ids: [productId] }]);
    expect(csafVuln(r).threats).toBeUndefined();
  });

  it('impact statement is carried by all three formats', async () => {
    const impact = 'minimist only parses our own fixed argv.';
    const r = await render(
      single(
        vexDisposition({
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
          impactStatement: impact,
        }),
      ),
    );
    expect(cdxVuln(r).analysis.detail).toBe(impact);
    expect(statement(r).impact_statement).toBe(impact);
    expect(csafVuln(r).threats).toEqual([
      {
        category: 'impact',
        details: impact,
        product_ids: [r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id],
      },
    ]);
  });

  it('not_affected without justification: impact statement from the detail (OpenVEX/CSAF require one of the two)', async () => {
    const r = await render(single(vexDisposition({ status: 'not_affected', detail: 'Feature compiled out.' })));
    expect(cdxVuln(r).analysis.justification).toBeUndefined();
    expect(statement(r).justification).toBeUndefined();
    expect(statement(r).impact_statement).toBe('Feature compiled out.');
    expect(csafVuln(r).flags).toBeUndefined();
    expect(csafVuln(r).threats?.[0]).toMatchObject({ category: 'impact', details: 'Feature compiled out.' });
  });

  it('not_affected with neither justification nor text still gets an impact statement', async () => {
    const r = await render(single(vexDisposition({ status: 'not_affected' })));
    expect(statement(r).impact_statement).toBe('Not affected (no justification was recorded).');
    expect(csafVuln(r).threats?.[0]?.details).toBe('Not affected (no justification was recorded).');
  });

  it('a justification on a status other than not_affected is not published', async () => {
    const r = await render(single(vexDisposition({ status: 'fixed', justification: 'component_not_present' })));
    expect(cdxVuln(r).analysis.justification).toBeUndefined();
    expect(property(r, 'vexdesk:justification')).toEqual([]);
    expect(statement(r).justification).toBeUndefined();
    expect(csafVuln(r).flags).toBeUndefined();
  });
});

describe('response (affected)', () => {
  it.each([
    // [ours = CycloneDX response, CSAF remediation category, default action text]
    [
      'update',
      'vendor_fix',
      'Update to a release of Acme Widget Server that includes a fixed version of minimist (fixed in 1.2.6).',
    ],
    [
      'rollback',
      'vendor_fix',
      'Roll back to an earlier release of Acme Widget Server that does not include the vulnerable minimist 1.2.5.',
    ],
    [
      'workaround_available',
      'workaround',
      'A workaround is available for Acme Widget Server 2.4.1; contact Acme Corp PSIRT for instructions.',
    ],
    ['will_not_fix', 'no_fix_planned', 'Acme Corp PSIRT will not fix this vulnerability in Acme Widget Server 2.4.1.'],
    [
      'can_not_fix',
      'none_available',
      'Acme Corp PSIRT cannot fix this vulnerability in Acme Widget Server 2.4.1; no fix is available.',
    ],
  ] as const)('%s -> CSAF %s', async (response: DispositionResponse, category, defaultText) => {
    expect(CSAF_REMEDIATION[response]).toBe(category);
    const r = await render(single(vexDisposition({ status: 'affected', response })));
    expect(cdxVuln(r).analysis.response).toEqual([response]);
    expect(cdxVuln(r).recommendation).toBe(defaultText);
    expect(statement(r).action_statement).toBe(defaultText);
    expect(statement(r).action_statement_timestamp).toBe('2026-02-20T10:00:00.000Z');
    const productId = r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id;
    expect(csafVuln(r).remediations).toEqual([{ category, details: defaultText, product_ids: [productId] }]);
  });

  it("the user's action statement replaces the default text in every format", async () => {
    const action = 'Upgrade to Acme Widget Server 2.4.2.';
    const r = await render(single(vexDisposition({ status: 'affected', response: 'update', actionStatement: action })));
    expect(cdxVuln(r).recommendation).toBe(action);
    expect(statement(r).action_statement).toBe(action);
    expect(csafVuln(r).remediations?.[0]?.details).toBe(action);
  });

  it('affected without a response: none_available with a default text', async () => {
    const r = await render(single(vexDisposition({ status: 'affected' })));
    expect(cdxVuln(r).analysis.response).toBeUndefined();
    expect(statement(r).action_statement).toBe('No remediation is available yet for Acme Widget Server 2.4.1.');
    expect(csafVuln(r).remediations?.[0]?.category).toBe('none_available');
  });

  it('detail and impact statement of an affected finding', async () => {
    const r = await render(
      single(
        vexDisposition({
          status: 'affected',
          response: 'update',
          detail: 'Reachable via CLI flags.',
          impactStatement: 'Local DoS.',
        }),
      ),
    );
    expect(cdxVuln(r).analysis.detail).toBe('Reachable via CLI flags.');
    expect(statement(r).status_notes).toBe('Reachable via CLI flags.\n\nLocal DoS.');
    expect(csafVuln(r).threats?.[0]).toMatchObject({ category: 'impact', details: 'Local DoS.' });
    expect(csafVuln(r).notes).toContainEqual({
      category: 'details',
      title: 'Analysis: minimist 1.2.5',
      text: 'Reachable via CLI flags.',
    });
  });
});

describe('scores, EPSS, KEV, CWE', () => {
  const scored = (extra: Partial<VexFinding>) => single(vexDisposition({ status: 'under_investigation' }), extra);

  it('CVSS v2 / v3.0 / v3.1 / v4.0 -> CycloneDX rating methods; CSAF cvss_v2/cvss_v3 and a v4 note', async () => {
    const r = await render(
      scored({
        cvssV2: { vector: '(AV:N/AC:L/Au:N/C:P/I:P/A:P)', score: 7.5, severity: 'HIGH' },
        cvssV3: { vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H', score: 8.8, severity: 'HIGH' },
        cvssV4: {
          vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
          score: 9.3,
          severity: 'CRITICAL',
        },
      }),
    );
    expect(cdxVuln(r).ratings).toEqual([
      {
        method: 'CVSSv4',
        score: 9.3,
        severity: 'critical',
        vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
      },
      { method: 'CVSSv3', score: 8.8, severity: 'high', vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H' },
      { method: 'CVSSv2', score: 7.5, severity: 'high', vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
    ]);
    const scores = csafVuln(r).scores?.[0];
    expect(scores?.cvss_v3).toEqual({
      version: '3.0',
      vectorString: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H',
      baseScore: 8.8,
      baseSeverity: 'HIGH',
    });
    expect(scores?.cvss_v2).toEqual({ version: '2.0', vectorString: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', baseScore: 7.5 });
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'CVSS v4.0',
      text: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N (base score 9.3, critical)',
    });
  });

  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'critical'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10, 'critical'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1, 'medium'],
    ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N', 5.5, 'medium'],
    ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', 5.9, 'medium'],
    ['CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N', 1.6, 'low'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0, 'none'],
    ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H/E:P/RL:O/RC:C', 9.9, 'critical'],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'critical'], // prefix-less v3 vector is read as 3.1
  ] as const)('v3 base score is computed from the vector: %s -> %s', async (vector, score, severity) => {
    // The stored score is deliberately wrong: the vector is authoritative (CSAF test 6.1.9 checks it).
    const r = await render(scored({ cvssV3: { vector, score: 4.2, severity: 'MEDIUM' } }));
    expect(cdxVuln(r).ratings?.[0]).toMatchObject({ score, severity });
    expect(csafVuln(r).scores?.[0]?.cvss_v3).toMatchObject({ baseScore: score, baseSeverity: severity.toUpperCase() });
  });

  it.each([
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 7.5],
    ['AV:N/AC:M/Au:N/C:N/I:P/A:N', 4.3],
    ['AV:N/AC:M/Au:N/C:C/I:C/A:C', 9.3],
    ['AV:L/AC:L/Au:N/C:C/I:C/A:C', 7.2],
    ['CVSS:2.0/AV:N/AC:L/Au:S/C:P/I:N/A:N', 4],
  ] as const)('v2 base score is computed from the vector: %s -> %s', async (vector, score) => {
    const r = await render(scored({ cvssV2: { vector, score: 1, severity: null } }));
    expect(cdxVuln(r).ratings?.find((x) => x.method === 'CVSSv2')?.score).toBe(score);
    expect(csafVuln(r).scores?.[0]?.cvss_v2?.baseScore).toBe(score);
  });

  it('CSAF scores only name products still exposed; a fixed-only vulnerability keeps its CVSS as a note (optional test 6.2.19)', async () => {
    const r = await render(single(vexDisposition({ status: 'fixed' })));
    expect(csafVuln(r).scores).toBeUndefined();
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'CVSS v3.1',
      text: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H (base score 9.8, critical)',
    });
    expect(cdxVuln(r).ratings).toHaveLength(1);
  });

  it('an unparsable vector is kept in CycloneDX as stored but only as a note in CSAF', async () => {
    const r = await render(scored({ cvssV3: { vector: 'CVSS:3.1/AV:X/garbage', score: 7.1, severity: 'HIGH' } }));
    expect(cdxVuln(r).ratings).toEqual([
      { method: 'CVSSv31', score: 7.1, severity: 'high', vector: 'CVSS:3.1/AV:X/garbage' },
    ]);
    expect(csafVuln(r).scores).toBeUndefined();
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'CVSS v3.1',
      text: 'CVSS:3.1/AV:X/garbage (base score 7.1, high)',
    });
  });

  it('EPSS is not a rating: CycloneDX properties, CSAF note, absent from OpenVEX', async () => {
    const r = await render(scored({ epss: { score: 0.00521, percentile: 0.7712 } }));
    expect(cdxVuln(r).ratings?.map((x) => x.method)).toEqual(['CVSSv31']);
    expect(property(r, 'vexdesk:epss:score')).toEqual(['0.00521']);
    expect(property(r, 'vexdesk:epss:percentile')).toEqual(['0.7712']);
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'EPSS',
      text: 'EPSS probability 0.00521 (percentile 0.7712).',
    });
    expect(JSON.stringify(r.openvex)).not.toContain('0.00521');
  });

  it('KEV: CycloneDX property, CSAF exploit_status threat', async () => {
    const r = await render(scored({ isKev: true }));
    expect(property(r, 'vexdesk:cisa_kev')).toEqual(['true']);
    expect(csafVuln(r).threats).toContainEqual(expect.objectContaining({ category: 'exploit_status' }));
    const notKev = await render(scored({ isKev: false }));
    expect(property(notKev, 'vexdesk:cisa_kev')).toEqual([]);
    expect(csafVuln(notKev).threats).toBeUndefined();
  });

  it('CWE: CycloneDX numbers; CSAF cwe only with the official name, all ids in a note otherwise', async () => {
    const r = await render(scored({ cwes: ['CWE-1321', 'CWE-502', 'NVD-CWE-Other'] }));
    expect(cdxVuln(r).cwes).toEqual([502, 1321]);
    expect(csafVuln(r).cwe).toEqual({ id: 'CWE-502', name: 'Deserialization of Untrusted Data' });
    expect(csafVuln(r).notes).toContainEqual({ category: 'other', title: 'CWE', text: 'CWE-502, CWE-1321' });
    const unnamed = await render({ ...scored({ cwes: ['CWE-1321'] }), cweNames: {} });
    expect(csafVuln(unnamed).cwe).toBeUndefined();
    expect(csafVuln(unnamed).notes).toContainEqual({ category: 'other', title: 'CWE', text: 'CWE-1321' });
  });
});

describe('identifiers', () => {
  it('a CVE id is CSAF `cve`, other ids go to `ids`; OpenVEX/CycloneDX alias lists', async () => {
    const r = await render(single(null));
    expect(csafVuln(r).cve).toBe('CVE-2021-44906');
    expect(csafVuln(r).ids).toEqual([{ system_name: 'GitHub Security Advisories', text: 'GHSA-xvch-5gv4-984h' }]);
    expect(statement(r).vulnerability).toEqual({
      '@id': 'https://nvd.nist.gov/vuln/detail/CVE-2021-44906',
      name: 'CVE-2021-44906',
      description: 'Prototype Pollution in minimist',
      aliases: ['GHSA-xvch-5gv4-984h'],
    });
    expect(cdxVuln(r).source).toEqual({ name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44906' });
    expect(cdxVuln(r).references).toEqual([
      // Dependency-Track's Vulnerability.Source enum name (its VEX import looks vulnerabilities up by source name and id).
      {
        id: 'GHSA-xvch-5gv4-984h',
        source: { name: 'GITHUB', url: 'https://github.com/advisories/GHSA-xvch-5gv4-984h' },
      },
    ]);
  });

  it('an advisory without CVE is published under its own id in CycloneDX and OpenVEX; CSAF cannot carry it alone (422)', () => {
    const input = single(null, { cveId: null, advisoryId: 'PYSEC-2024-60', aliases: [] });
    const openvex = generateOpenVex(input);
    const cdx = generateCycloneDxVex(input);
    expect(openvex.statements[0]!.vulnerability.name).toBe('PYSEC-2024-60');
    expect(cdx.vulnerabilities[0]!.id).toBe('PYSEC-2024-60');
    expect(cdx.vulnerabilities[0]!.source).toEqual({ name: 'OSV', url: 'https://osv.dev/vulnerability/PYSEC-2024-60' });
    // Trivy dereferences `cve` of every CSAF vulnerability (pkg/vex/csaf.go), so CSAF publishes CVE ids only.
    expect(() => generateCsaf(input)).toThrow(expect.objectContaining({ code: 'vex_no_statements', status: 422 }));
  });

  it('CSAF lists advisories without a CVE id in a document note, not as vulnerabilities (Trivy dereferences `cve`)', async () => {
    const input = single(null);
    input.findings.push(
      vexFinding({
        id: 'aaaaaaaa-0000-4000-8000-000000000002',
        componentRef: COMPONENT.ref,
        cveId: null,
        advisoryId: 'PYSEC-2024-60',
        aliases: [],
        disposition: vexDisposition({ status: 'not_affected', justification: 'vulnerable_code_not_present' }),
      }),
    );
    const r = await render(input);
    expect(r.csaf.vulnerabilities.map((v) => v.cve)).toEqual(['CVE-2021-44906']);
    expect(r.csaf.vulnerabilities.every((v) => typeof v.cve === 'string')).toBe(true);
    const note = r.csaf.document.notes.find((n) => n.title === 'Vulnerabilities without a CVE id');
    expect(note?.text).toContain('PYSEC-2024-60: minimist 1.2.5: not_affected (vulnerable_code_not_present)');
    expect(r.openvex.statements.map((st) => st.vulnerability.name).sort()).toEqual(['CVE-2021-44906', 'PYSEC-2024-60']);
  });

  it('a finding with cveId null but exactly one CVE alias is published under that CVE', async () => {
    const r = await render(
      single(null, { cveId: null, advisoryId: 'GHSA-xvch-5gv4-984h', aliases: ['CVE-2021-44906'] }),
    );
    expect(csafVuln(r).cve).toBe('CVE-2021-44906');
    expect(statement(r).vulnerability.name).toBe('CVE-2021-44906');
  });

  it('component identifiers: purl, else CPE, else a pkg:generic purl', async () => {
    const input = baseVexInput({
      components: [
        { ref: 'c-purl', name: 'minimist', version: '1.2.5', purl: 'pkg:npm/minimist@1.2.5', cpes: [] },
        {
          ref: 'c-cpe23',
          name: 'openssl',
          version: '3.0.8',
          purl: null,
          cpes: ['cpe:2.3:a:openssl:openssl:3.0.8:*:*:*:*:*:*:*'],
        },
        { ref: 'c-cpe22', name: 'busybox', version: '1.36.1', purl: null, cpes: ['cpe:/a:busybox:busybox:1.36.1'] },
        { ref: 'c-none', name: 'in house', version: null, purl: 'not a purl', cpes: [] },
      ],
      findings: ['c-purl', 'c-cpe23', 'c-cpe22', 'c-none'].map((ref, i) =>
        vexFinding({
          id: `f-${i}`,
          componentRef: ref,
          cveId: 'CVE-2023-0001',
          disposition: vexDisposition({ status: 'fixed' }),
        }),
      ),
    });
    const r = await render(input);
    expect(statement(r).products[0]?.subcomponents).toEqual([
      { '@id': 'cpe:/a:busybox:busybox:1.36.1', identifiers: { cpe22: 'cpe:/a:busybox:busybox:1.36.1' } },
      { '@id': 'pkg:generic/in%20house', identifiers: { purl: 'pkg:generic/in%20house' } },
      { '@id': 'pkg:npm/minimist@1.2.5', identifiers: { purl: 'pkg:npm/minimist@1.2.5' } },
      {
        '@id': 'cpe:2.3:a:openssl:openssl:3.0.8:*:*:*:*:*:*:*',
        identifiers: { cpe23: 'cpe:2.3:a:openssl:openssl:3.0.8:*:*:*:*:*:*:*' },
      },
    ]);
    expect(statement(r).products[0]?.['@id']).toBe('pkg:generic/acme-widget-server@2.4.1');
    const names = r.csaf.product_tree.full_product_names ?? [];
    expect(names.map((n) => n.product_identification_helper ?? null)).toEqual([
      { cpe: 'cpe:/a:busybox:busybox:1.36.1' },
      null, // invalid purl dropped (CSAF test 6.1.13)
      { purl: 'pkg:npm/minimist@1.2.5' },
      { cpe: 'cpe:2.3:a:openssl:openssl:3.0.8:*:*:*:*:*:*:*' },
    ]);
    expect(r.cdx.components.find((c) => c['bom-ref'] === 'c-none')?.purl).toBeUndefined();
  });

  it('the release purl, when known, identifies the product', async () => {
    const input = {
      ...single(null),
      release: {
        id: 'rel-1',
        version: '2.4.1',
        purl: 'pkg:oci/widget-server@sha256%3Aabc?repository_url=ghcr.io/acme',
      },
    };
    const r = await render(input);
    expect(statement(r).products[0]?.['@id']).toBe('pkg:oci/widget-server@sha256%3Aabc?repository_url=ghcr.io/acme');
    expect(r.cdx.metadata.component.purl).toBe('pkg:oci/widget-server@sha256%3Aabc?repository_url=ghcr.io/acme');
  });
});

describe('grouping and duplicates', () => {
  const two = (a: VexDisposition | null, b: VexDisposition | null, sameComponent: boolean): VexGenerationInput =>
    baseVexInput({
      components: [
        COMPONENT,
        { ...COMPONENT, ref: 'pkg:npm/minimist@1.2.0', version: '1.2.0', purl: 'pkg:npm/minimist@1.2.0' },
      ],
      findings: [
        vexFinding({ id: 'f-a', componentRef: COMPONENT.ref, cveId: 'CVE-2021-44906', disposition: a }),
        vexFinding({
          id: 'f-b',
          componentRef: sameComponent ? COMPONENT.ref : 'pkg:npm/minimist@1.2.0',
          cveId: null,
          advisoryId: 'GHSA-xvch-5gv4-984h',
          aliases: ['CVE-2021-44906'],
          disposition: b,
        }),
      ],
    });

  it('identical assertions on two components share one OpenVEX statement / CycloneDX entry; CSAF has one vulnerability', async () => {
    const d = vexDisposition({ status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path' });
    const r = await render(two(d, d, false));
    expect(statement(r).products[0]?.subcomponents).toHaveLength(2);
    expect(cdxVuln(r).affects.map((a) => a.ref)).toEqual(['pkg:npm/minimist@1.2.0', 'pkg:npm/minimist@1.2.5']);
    expect(csafVuln(r).product_status.known_not_affected).toHaveLength(2);
  });

  it('different assertions stay separate OpenVEX statements, one CycloneDX entry (least reassuring analysis) and one CSAF vulnerability', async () => {
    const r = await render(
      two(vexDisposition({ status: 'fixed' }), vexDisposition({ status: 'affected', response: 'update' }), false),
    );
    expect(r.openvex.statements.map((s) => s.status).sort()).toEqual(['affected', 'fixed']);
    // Trivy reads the first entry of an id only (pkg/vex/cyclonedx.go lo.Find): one entry per id with every component.
    const entry = cdxVuln(r);
    expect(entry.affects).toHaveLength(2);
    expect(entry.analysis.state).toBe('exploitable');
    expect(entry.affects.map((a) => a.versions?.[0]?.status).sort()).toEqual(['affected', 'unaffected']);
    expect(property(r, 'vexdesk:component-status')).toHaveLength(2);
    expect(Object.keys(csafVuln(r).product_status).sort()).toEqual(['fixed', 'known_affected']);
  });

  it.each([
    [
      'affected beats not_affected',
      vexDisposition({ status: 'not_affected', justification: 'component_not_present' }),
      vexDisposition({ status: 'affected', response: 'update' }),
      'affected',
    ],
    ['untriaged beats fixed', vexDisposition({ status: 'fixed' }), null, 'under_investigation'],
    [
      'fixed beats not_affected',
      vexDisposition({ status: 'not_affected', justification: 'component_not_present' }),
      vexDisposition({ status: 'fixed' }),
      'fixed',
    ],
  ] as const)(
    'duplicate findings of one component merge, least reassuring status wins: %s',
    async (_label, a, b, expected) => {
      const r = await render(two(a, b, true));
      expect(statement(r).status).toBe(expected);
      expect(property(r, 'vexdesk:finding')).toEqual(['f-a', 'f-b']);
    },
  );

  it('among equal statuses the most recently updated disposition wins', async () => {
    const older = vexDisposition({
      status: 'not_affected',
      justification: 'component_not_present',
      updatedAt: '2026-01-01T00:00:00Z',
    });
    const newer = vexDisposition({
      status: 'not_affected',
      justification: 'inline_mitigations_already_exist',
      updatedAt: '2026-02-01T00:00:00Z',
    });
    const r = await render(two(older, newer, true));
    expect(statement(r).justification).toBe('inline_mitigations_already_exist');
  });
});

describe('CSAF document tracking', () => {
  it('revision history runs 1..version with ascending dates, supplied entries kept', async () => {
    const input = single(null);
    const r = await render({
      ...input,
      document: {
        ...input.document,
        version: 4,
        revisions: [
          { version: 1, date: '2026-02-01T09:00:00.000Z', summary: 'First publication.' },
          { version: 3, date: '2026-01-15T00:00:00.000Z', summary: 'Out-of-order date.' },
        ],
      },
    });
    expect(r.csaf.document.tracking.revision_history).toEqual([
      { number: '1', date: '2026-02-01T09:00:00.000Z', summary: 'First publication.' },
      {
        number: '2',
        date: '2026-02-01T09:00:00.000Z',
        summary: 'Regenerated from the current dispositions (version 2).',
      },
      { number: '3', date: '2026-02-01T09:00:00.000Z', summary: 'Out-of-order date.' },
      {
        number: '4',
        date: '2026-03-01T12:00:00.000Z',
        summary: 'Regenerated from the current dispositions (version 4).',
      },
    ]);
    expect(r.csaf.document.tracking.version).toBe('4');
    expect(r.csaf.document.tracking.initial_release_date).toBe('2026-02-01T09:00:00.000Z');
  });

  it('published documents are final', async () => {
    const input = single(null);
    const r = await render({ ...input, document: { ...input.document, status: 'final', version: 1, revisions: [] } });
    expect(r.csaf.document.tracking.status).toBe('final');
    expect(r.csaf.document.distribution).toEqual({ tlp: { label: 'WHITE', url: 'https://www.first.org/tlp/' } });
    expect(generateCsaf(input).document.distribution).toBeUndefined(); // drafts are not labelled for sharing
    expect(r.cdx.metadata.properties).toContainEqual({ name: 'vexdesk:document:status', value: 'final' });
  });

  it('a release version that reads like a range is not put in a product_version branch (test 6.1.31)', async () => {
    const input = single(null);
    const r = await render({ ...input, release: { ...input.release, version: 'all platforms 2026' } });
    const nameBranch = r.csaf.product_tree.branches[0]?.branches?.[0];
    expect(nameBranch?.branches).toBeUndefined();
    expect(nameBranch?.product?.name).toBe('Acme Corp Acme Widget Server all platforms 2026');
  });
});
