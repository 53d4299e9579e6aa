import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { SSDF_EVIDENCED_TASKS } from '../../shared/service/compliance/frameworks/ssdf';
import { buildSampleComponents, buildSampleReportInput } from '../../shared/service/compliance/fixtures';
import type { ComplianceReportInput } from '../../shared/service/compliance/model';
import { renderComplianceReport, verifyReportFingerprint } from '../../shared/service/compliance/report';
import { count, section } from '../support/assertions';

type Input = ComplianceReportInput;

function render(overrides: Partial<Input> = {}, options: Parameters<typeof renderComplianceReport>[1] = {}) {
  return renderComplianceReport({ ...buildSampleReportInput(), ...overrides }, options);
}

/** Status class of the badge in the table row whose reference cell is `ref`. */
function statusOf(html: string, ref: string): string | undefined {
  const start = html.indexOf(`<strong>${ref}</strong>`);
  if (start < 0) return undefined;
  const row = html.slice(start, html.indexOf('</tr>', start));
  return /badge st-([a-z_]+)/.exec(row.slice(row.lastIndexOf('<td>')))?.[1];
}

describe('compliance report: product and release', () => {
  it('shows product, vendor, links, release, dates, status and lock state', () => {
    const { html } = render();
    const product = section(html, 'product');
    expect(product).toContain('Acme Edge Router');
    expect(product).toContain('acme-edge-router');
    expect(product).toContain('Acme Networks GmbH');
    expect(product).toContain('<a href="https://acme.example/edge-router">');
    expect(product).toContain('<a href="https://git.acme.example/edge/router">');
    expect(product).toContain('4.2.0 · Spring release');
    expect(product).toContain('2025-05-15');
    expect(product).toContain('2028-05-15');
    expect(product).toContain('active · locked for review');
    expect(product).toContain('Prepared for Acme Product Security');
  });

  it('does not link a product URL that is not http(s)', () => {
    const input = buildSampleReportInput();
    const { html } = renderComplianceReport({
      ...input,
      product: { ...input.product, websiteUrl: 'javascript:alert(1)' },
    });
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('not an http(s) URL; not linked');
  });

  it('states missing optional data as not recorded instead of inventing it', () => {
    const { html } = render({ product: { name: 'Bare', slug: 'bare' }, release: { version: '0.1.0' } });
    const product = section(html, 'product');
    expect(count(product, 'not recorded')).toBe(3); // vendor, release date, end of life
    expect(product).toContain('not locked');
  });
});

describe('compliance report: SBOM and inventory', () => {
  it('lists each SBOM with format, tool, hash, size and scan time, and the inventory coverage', () => {
    const { html } = render();
    const sbom = section(html, 'sbom');
    expect(sbom).toContain('CycloneDX 1.5');
    expect(sbom).toContain('cdxgen 8.6.0');
    expect(sbom).toContain('SHA-256 a3f1c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978');
    expect(sbom).toContain('acme-edge-router-4.2.0.cdx.json');
    expect(sbom).toContain('2025-06-28 12:00 UTC');
    expect(sbom).toContain(
      '25 components recorded; 100 % with a version, 100 % with a package URL, 100 % with a licence.',
    );
  });

  it('says there is no SBOM and marks SBOM-based items not evidenced', () => {
    const { html } = render({ sboms: [], components: [], findings: [] });
    expect(section(html, 'sbom')).toContain('No SBOM has been uploaded for this release.');
    expect(section(html, 'inventory')).toContain('No components recorded for this release.');
    expect(statusOf(html, 'Annex I Part II (1)')).toBe('not_evidenced');
    expect(statusOf(html, 'EO 14028 §4(e)(vii)')).toBe('not_evidenced');
    expect(statusOf(html, 'PS.3.2')).toBe('not_evidenced');
    expect(html).toContain('No SBOM uploaded for this release.');
  });

  it('renders all 10,000 components of a large SBOM without truncating', () => {
    const components = buildSampleComponents(10_000);
    const input = buildSampleReportInput({ components: 10_000 });
    const { html } = renderComplianceReport({ ...input, components });
    const inventory = section(html, 'inventory');
    expect(count(inventory, '<tr><td class="num">')).toBe(10_000);
    expect(inventory).toContain('<td class="num">10000</td><td>component-09999</td>');
    expect(inventory).not.toContain('to keep the report within size limits');
    expect(html).toContain('SBOM present (CycloneDX 1.5, 10,000 components).');
  });

  it('says so, and where the full list is, when the inventory is cut', () => {
    const { html } = render({}, { maxComponentRows: 5 });
    const inventory = section(html, 'inventory');
    expect(count(inventory, '<tr><td class="num">')).toBe(5);
    expect(inventory).toContain('first 5 of 25 components');
    expect(inventory).toContain('https://vexdesk.example.com/api/sboms/5f0c8f39-4b0a-4a55-8d38-2a8f0b5f7a11/download');
  });

  it('sorts the inventory by name', () => {
    const { html } = render({
      components: [
        { name: 'zlib', version: '1.3' },
        { name: 'abseil', version: '2024' },
      ],
    });
    const inventory = section(html, 'inventory');
    expect(inventory.indexOf('abseil')).toBeLessThan(inventory.indexOf('zlib'));
  });
});

describe('compliance report: vulnerabilities and dispositions', () => {
  it('counts findings by severity and disposition', () => {
    const { html } = render();
    const vulns = section(html, 'vulnerabilities');
    expect(vulns).toContain('12 findings; last scan 2025-06-28 12:00 UTC.');
    // Sample: 5 critical findings: 1 not affected, 2 fixed, 1 under investigation, 1 without disposition.
    expect(vulns).toContain(
      '<span class="badge sev-critical">critical</span></td><td class="num">0</td><td class="num">1</td><td class="num">2</td><td class="num">1</td><td class="num">1</td><td class="num"><strong>5</strong>',
    );
  });

  it('lists known-exploited findings first, then by severity and EPSS', () => {
    const { html } = render();
    const findings = section(html, 'findings');
    const order = ['CVE-2021-44228', 'CVE-2023-4863', 'CVE-2022-22965', 'CVE-2020-8908'].map((cve) =>
      findings.indexOf(cve),
    );
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(section(html, 'vulnerabilities')).toContain(
      '<span class="kev-flag">KEV</span> <span class="small">CISA due 2021-12-24</span>',
    );
  });

  it('shows CVSS, EPSS with percentile, the decision and its detail', () => {
    const findings = section(render().html, 'findings');
    expect(findings).toContain('10.0 / — / 9.3');
    expect(findings).toContain('94.5 %<br><span class="small muted">pct 99.9</span>');
    expect(findings).toContain('Affected: will not fix<span class="detail">Temp-dir API unused on server.</span>');
  });

  it('cuts long disposition details visibly and says where the full text is', () => {
    const input = buildSampleReportInput();
    const [first, ...rest] = input.findings ?? [];
    const long = {
      ...first!,
      disposition: { status: 'fixed' as const, updatedAt: first!.firstDetectedAt, detail: 'x'.repeat(400) },
    };
    const { html } = renderComplianceReport({ ...input, findings: [long, ...rest] }, { maxDetailChars: 300 });
    expect(html).toContain(`${'x'.repeat(300)} […]`);
    expect(html).not.toContain('x'.repeat(301));
    expect(html).toContain('longer than 300 characters are cut');
  });

  it('reports a scan without findings, and no scan at all, differently', () => {
    const input = buildSampleReportInput();
    const scannedClean = renderComplianceReport({ ...input, findings: [] }).html;
    expect(scannedClean).toContain('0 findings; last scan 2025-06-28 12:00 UTC.');
    expect(scannedClean).toContain('The scan matched no vulnerabilities; nothing to remediate.');
    expect(statusOf(scannedClean, 'Annex I Part II (2)')).toBe('met');
    expect(statusOf(scannedClean, 'Annex I Part I (2)(a)')).toBe('met');
    expect(section(scannedClean, 'sla')).toContain('No findings, so no SLA clock is running.');

    const neverScanned = renderComplianceReport({
      ...input,
      findings: [],
      sboms: input.sboms?.map((s) => ({ ...s, scannedAt: null })),
    }).html;
    expect(section(neverScanned, 'vulnerabilities')).toContain('No vulnerability scan is recorded for this release.');
    expect(statusOf(neverScanned, 'Annex I Part II (1)')).toBe('partial');
    expect(statusOf(neverScanned, 'Annex I Part II (2)')).toBe('not_evidenced');
    expect(statusOf(neverScanned, 'RV.1.1')).toBe('not_evidenced');
  });
});

describe('compliance report: VEX documents', () => {
  it('shows each document with format, state, approval trail and disclosure links', () => {
    const vex = section(render().html, 'vex');
    expect(vex).toContain('OpenVEX · version 3 · published');
    expect(vex).toContain('CSAF · version 1 · draft');
    expect(vex).toContain('<td>approve</td><td>Max Mustermann</td>');
    expect(vex).toContain('Published by CI');
    expect(vex).toContain('<a href="https://vexdesk.example.com/api/disclosures/acme-edge-router-4-2-0-openvex-v3">');
    expect(vex).toContain(
      '<a href="https://vexdesk.example.com/api/disclosures/acme-edge-router-4-2-0-openvex-v3/verify">',
    );
    expect(vex).toContain('HMAC-SHA256 signed');
    expect(vex).toContain('not published');
  });

  it('says when there is no VEX document', () => {
    const { html } = render({ vexDocuments: [] });
    expect(section(html, 'vex')).toContain('No VEX document has been generated for this release.');
    expect(statusOf(html, 'Annex I Part II (4)')).toBe('not_evidenced');
  });

  it('flags dispositions changed after the latest disclosure', () => {
    const input = buildSampleReportInput();
    const [first, ...rest] = input.findings ?? [];
    const late = { ...first!, disposition: { status: 'fixed' as const, updatedAt: input.generatedAt } };
    const { html } = renderComplianceReport({ ...input, findings: [late, ...rest] });
    expect(section(html, 'vex')).toContain('changed after the latest public disclosure');
    expect(statusOf(html, 'Annex I Part II (4)')).toBe('partial');
  });
});

describe('compliance report: SLA section', () => {
  it('states the policy in force and the met / breached / at-risk counts', () => {
    const sla = section(render().html, 'sla');
    expect(sla).toContain('Policy (service defaults)');
    expect(sla).toContain('<strong>7</strong> days of first detection for critical');
    expect(sla).toMatch(/<td class="num">12<\/td><td class="num">4<\/td><td class="num">6<br>/);
    expect(sla).toContain('3 overdue, 3 closed late');
    expect(sla).toContain('CVE-2023-4863');
    expect(sla).toContain('7 d (KEV)');
  });

  it('uses the team policy when one is set', () => {
    const sla = section(render({ slaPolicy: { critical: 2 } }).html, 'sla');
    expect(sla).toContain('Policy (team policy');
    expect(sla).toContain('<strong>2</strong> days of first detection for critical');
  });
});

describe('compliance report: frameworks', () => {
  it('assesses CRA Annex I Part II items 1-8 from the data', () => {
    const { html } = render();
    expect(statusOf(html, 'Annex I Part II (1)')).toBe('met');
    expect(html).toContain('SBOM present (CycloneDX 1.5, 25 components).');
    expect(statusOf(html, 'Annex I Part II (2)')).toBe('not_evidenced'); // SLA breaches in the sample
    expect(statusOf(html, 'Annex I Part II (3)')).toBe('partial');
    expect(statusOf(html, 'Annex I Part II (4)')).toBe('met');
    for (const point of [5, 6, 7]) expect(statusOf(html, `Annex I Part II (${point})`)).toBe('manual');
    expect(statusOf(html, 'Annex I Part II (8)')).toBe('partial');
  });

  it('marks Part II (2) met when every finding was decided within the SLA', () => {
    const input = buildSampleReportInput();
    const findings = (input.findings ?? []).map((f) => ({
      ...f,
      disposition: { status: 'fixed' as const, updatedAt: f.firstDetectedAt },
    }));
    const { html } = renderComplianceReport({ ...input, findings });
    expect(statusOf(html, 'Annex I Part II (2)')).toBe('met');
    expect(statusOf(html, 'Annex I Part I (2)(a)')).toBe('met');
    expect(statusOf(html, 'RV.2.2')).toBe('met');
  });

  it('does not evidence "no known exploitable vulnerabilities" while a KEV finding is open', () => {
    const { html } = render();
    expect(statusOf(html, 'Annex I Part I (2)(a)')).toBe('not_evidenced');
    expect(html).toContain('1 known-exploited (CISA KEV) finding neither fixed nor not affected.');
  });

  it('keeps design-only Part I items and the EO development attestation as manual attestations', () => {
    const { html } = render();
    for (const ref of [
      '(1)',
      '(2)(b)',
      '(2)(d)',
      '(2)(e)',
      '(2)(f)',
      '(2)(g)',
      '(2)(h)',
      '(2)(i)',
      '(2)(j)',
      '(2)(k)',
      '(2)(l)',
      '(2)(m)',
    ]) {
      expect(statusOf(html, `Annex I Part I ${ref}`)).toBe('manual');
    }
    expect(statusOf(html, 'EO 14028 §4(e)(ix); EO 14144 §2')).toBe('manual');
    expect(statusOf(html, 'EO 14028 §4(e)(i)')).toBe('manual');
    expect(statusOf(html, 'EO 14028 §4(e)(vii)')).toBe('met');
    expect(statusOf(html, 'VEX (CISA guidance, EO 14028 §4(e)(vi)–(vii))')).toBe('met');
  });

  it('lists every SSDF practice group and task, evidencing only those backed by data', () => {
    const ssdf = section(render().html, 'ssdf');
    for (const group of [
      'PO: Prepare the Organization',
      'PS: Protect the Software',
      'PW: Produce Well-Secured Software',
      'RV: Respond to Vulnerabilities',
    ]) {
      expect(ssdf).toContain(group);
    }
    const tasks = [...ssdf.matchAll(/<strong>((?:PO|PS|PW|RV)\.\d\.\d)<\/strong>/g)].map((m) => m[1]);
    expect(tasks).toHaveLength(42);
    for (const task of tasks) {
      const status = statusOf(ssdf, task!);
      if (SSDF_EVIDENCED_TASKS.includes(task!)) expect(status).not.toBe('manual');
      else expect(status).toBe('manual');
    }
    expect(statusOf(ssdf, 'PS.3.2')).toBe('met');
    expect(statusOf(ssdf, 'RV.1.1')).toBe('partial'); // one finding has no disposition yet
    expect(statusOf(ssdf, 'PS.2.1')).toBe('partial');
  });

  it('puts a sign-off line under every manual or partial item and none under met items', () => {
    const { html } = render();
    const row = (ref: string) =>
      html.slice(
        html.indexOf(`<strong>${ref}</strong>`),
        html.indexOf('</tr>', html.indexOf(`<strong>${ref}</strong>`)),
      );
    expect(row('PO.1.1')).toContain('Attested by');
    expect(row('Annex I Part II (3)')).toContain('Attested by');
    expect(row('PS.3.2')).not.toContain('Attested by');
  });
});

describe('compliance report: document and print', () => {
  it('is self-contained: inline CSS, no scripts, no external resources', () => {
    const { html } = render();
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|src=/i);
    expect(html).toContain('<style>');
    expect(html).toContain("default-src 'none'");
  });

  it('has A4 print styles, unsplit rows, repeated table headers and a running header', () => {
    const { html } = render();
    expect(html).toContain('size: A4;');
    expect(html).toContain('tr, .keep { break-inside: avoid; page-break-inside: avoid; }');
    expect(html).toContain('thead { display: table-header-group; }');
    expect(html).toContain('position: fixed;');
    expect(html).toContain('position: running(pageHeader);');
    expect(html).toContain('content: element(pageHeader);');
    const header = html.slice(html.indexOf('<header class="running-header">'), html.indexOf('</header>'));
    expect(header).toContain('Acme Edge Router 4.2.0');
    expect(header).toContain('Generated 2025-06-30 12:00 UTC');
  });

  it('embeds a fingerprint that recomputes from the document', () => {
    const { html, sha256 } = render();
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(html).toContain(`<meta name="report-sha256" content="${sha256}">`);
    expect(count(html, sha256)).toBe(5); // meta tag, page header, sign-off text and command, footer
    const recomputed = createHash('sha256').update(html.split(sha256).join(''), 'utf8').digest('hex');
    expect(recomputed).toBe(sha256);
    expect(verifyReportFingerprint(html)).toEqual({ claimed: sha256, computed: sha256, valid: true });
  });

  it('detects a modified report', () => {
    const { html } = render();
    expect(verifyReportFingerprint(html.replace('Acme Networks GmbH', 'Acme Networks AG')).valid).toBe(false);
  });

  it('renders byte-identical output for the same input', () => {
    expect(render().sha256).toBe(render().sha256);
    expect(render({ generatedAt: '2025-07-01T00:00:00Z' }).sha256).not.toBe(render().sha256);
  });

  it('rejects input that does not match the model', () => {
    expect(() => render({ generatedAt: 'tomorrow' })).toThrow();
    expect(() => render({ baseUrl: 'ftp://example.com' })).toThrow();
  });
});
