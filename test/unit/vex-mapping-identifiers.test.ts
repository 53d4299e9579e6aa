/**
 * VEX mapping: vulnerability and component identifiers in each format (test/support/vex-mapping.ts
 * renders each cell and checks the documents).
 */
import { describe, expect, it } from '@jest/globals';
import { generateCsaf, generateCycloneDxVex, generateOpenVex } from '../../shared/service/vex/formats';
import { baseVexInput, vexDisposition, vexFinding } from '../bench/vex-generation';
import { COMPONENT, cdxVuln, csafVuln, render, single, statement } from '../support/vex-mapping';

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
