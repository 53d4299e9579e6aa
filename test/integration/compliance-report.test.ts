import { describe, expect, it } from '@jest/globals';
import { verifyReportFingerprint } from '../../shared/service/compliance/report';
import { addKey, createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom, seedReleaseWithFindings, type SeededFinding } from '../support/seed';
import { count, section } from '../support/assertions';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;
type Data<T> = { data: T };
type Named = { id: string; name: string };
interface Seeded {
  product: Named;
  release: { id: string };
  sbom: { id: string; file_hash: string };
  findings: SeededFinding[];
}

async function getReport(team: Pick<Team, 'api'>, releaseId: string) {
  return team.api.get<string>(`/api/compliance/${releaseId}/report`);
}

async function bareRelease(team: Team, product: Record<string, unknown> = {}, release: Record<string, unknown> = {}) {
  const created = await team.api.post<Data<Named>>('/api/products', { name: 'Plain', slug: uniqueSlug(), ...product });
  expect(created.status).toBe(201);
  const createdRelease = await team.api.post<Data<{ id: string }>>(`/api/products/${created.body.data.id}/releases`, {
    version: '0.1.0',
    ...release,
  });
  expect(createdRelease.status).toBe(201);
  return { product: created.body.data, release: createdRelease.body.data };
}

describe('GET /api/compliance/{releaseId}/report', () => {
  it('returns the HTML report with the CSP, fingerprint and no-store headers', async () => {
    const team = await createTeamWithKey();
    const { release }: Seeded = await seedReleaseWithFindings(team.api, team.teamId, 2);

    const response = await getReport(team, release.id);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    const fingerprint = verifyReportFingerprint(response.text);
    expect(fingerprint.valid).toBe(true);
    expect(response.headers.get('x-report-sha256')).toBe(fingerprint.claimed);
    expect(response.text).not.toMatch(/<script/i);
  });

  it('shows every section for a seeded release with dispositions and a VEX document', async () => {
    const team = await createTeamWithKey();
    const { release, sbom, findings }: Seeded = await seedReleaseWithFindings(team.api, team.teamId, 4);
    const [kev, second, third] = findings;
    if (!kev || !second || !third) throw new Error('seed returned too few findings');
    expect(
      (
        await team.api.post('/api/dispositions', {
          vulnerabilityId: second.id,
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
          detail: 'Parser never sees user input.',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await team.api.post('/api/dispositions', {
          vulnerabilityId: third.id,
          status: 'affected',
          response: 'will_not_fix',
        })
      ).status,
    ).toBe(201);
    expect(
      (await team.api.post('/api/dispositions', { vulnerabilityId: kev.id, status: 'under_investigation' })).status,
    ).toBe(201);
    const vex = await team.api.post<Data<{ id: string }>>(`/api/releases/${release.id}/vex`, {
      format: 'openvex',
      author: 'PSIRT Team',
    });
    expect(vex.status).toBe(201);
    expect((await team.api.put('/api/settings', { slaPolicy: { critical: 3 } })).status).toBe(200);

    const { status, text: html } = await getReport(team, release.id);

    expect(status).toBe(200);
    const product = section(html, 'product');
    expect(product).toContain('Seeded &lt;App&gt; 1.0.0');
    expect(product).toContain('ACME Corp');
    expect(product).toContain('active · not locked');

    const sbomSection = section(html, 'sbom');
    expect(sbomSection).toContain('CycloneDX 1.5');
    expect(sbomSection).toContain('test-tool');
    expect(sbomSection).toContain('bom.json');
    expect(sbomSection).toContain(sbom.file_hash.replace(/^sha256:/, ''));
    expect(sbomSection).toContain('4 components recorded');

    const vulnerabilities = section(html, 'vulnerabilities');
    expect(vulnerabilities).toContain('Known exploited vulnerabilities');
    expect(vulnerabilities).toContain(kev.cveId);
    expect(vulnerabilities).toContain('CISA due 2026-01-22');
    const matrixRow = (severity: string, cells: number[]) =>
      `sev-${severity}">${severity}</span></td>${cells.map((cell) => `<td class="num">${cell}</td>`).join('')}`;
    // Columns: affected, not affected, fixed, under investigation, no disposition.
    expect(vulnerabilities).toContain(matrixRow('critical', [0, 0, 0, 1, 0]));
    expect(vulnerabilities).toContain(matrixRow('high', [0, 1, 0, 0, 0]));
    expect(vulnerabilities).toContain(matrixRow('medium', [1, 0, 0, 0, 0]));
    expect(vulnerabilities).toContain(matrixRow('low', [0, 0, 0, 0, 1]));
    expect(vulnerabilities).not.toContain(
      'No finding is listed in the CISA Known Exploited Vulnerabilities catalogue.',
    );

    const vexSection = section(html, 'vex');
    expect(vexSection).toContain('OpenVEX · version 1 · draft');
    expect(vexSection).toContain(vex.body.data.id);
    expect(vexSection).toContain('PSIRT Team');
    expect(vexSection).toContain('not published');

    const sla = section(html, 'sla');
    expect(sla).toContain('team policy');
    expect(sla).toContain('<strong>3</strong> days of first detection for critical');

    for (const id of ['summary', 'cra', 'eo', 'ssdf', 'signoff']) expect(section(html, id).length).toBeGreaterThan(100);

    const inventory = section(html, 'inventory');
    findings.forEach((finding, index) => expect(inventory).toContain(`pkg:npm/${finding.componentName}@1.${index}.0`));

    const appendix = section(html, 'findings');
    for (const finding of findings) expect(appendix).toContain(finding.cveId);
    expect(appendix).toContain('Parser never sees user input.');
    expect(appendix).toMatch(/will.not.fix/i);
  });

  it('shows the approval trail and the public disclosure of a published VEX document', async () => {
    const team = await createTeamWithKey();
    const { release }: Seeded = await seedReleaseWithFindings(team.api, team.teamId, 2);
    const vexId = (
      await team.api.post<Data<{ id: string }>>(`/api/releases/${release.id}/vex`, { format: 'cyclonedx_vex' })
    ).body.data.id;
    expect((await team.api.post(`/api/vex/${vexId}/submit`, { comment: 'ready for review' })).status).toBe(200);
    expect((await team.api.post(`/api/vex/${vexId}/approve`, {})).status).toBe(200);
    const published = await team.api.post<{ disclosure: { public_slug: string; content_hash: string } }>(
      `/api/vex/${vexId}/publish`,
      {},
    );
    expect(published.status).toBe(200);
    const slug = published.body.disclosure.public_slug;

    const { status, text: html } = await getReport(team, release.id);

    expect(status).toBe(200);
    expect(section(html, 'product')).toContain('locked for review');
    const vexSection = section(html, 'vex');
    expect(vexSection).toContain('published');
    expect(vexSection).toContain(slug);
    expect(vexSection).toContain(`/api/disclosures/${slug}/verify`);
    expect(vexSection).toContain(published.body.disclosure.content_hash);
    expect(vexSection).toContain('HMAC-SHA256 signed');
    expect(vexSection).toContain('ready for review');
    for (const action of ['submit', 'approve', 'publish']) expect(vexSection).toContain(`<td>${action}</td>`);
    expect(vexSection).toContain(`api_${team.keyName}`);
  });

  it('renders a release with no SBOM', async () => {
    const team = await createTeamWithKey();
    const { release } = await bareRelease(team);

    const { status, text: html } = await getReport(team, release.id);

    expect(status).toBe(200);
    expect(section(html, 'sbom')).toContain('No SBOM has been uploaded for this release.');
    expect(section(html, 'inventory')).toContain('No components recorded for this release.');
    expect(section(html, 'vex')).toContain('No VEX document has been generated for this release.');
    expect(verifyReportFingerprint(html).valid).toBe(true);
  });

  it('renders a release whose SBOM has no findings', async () => {
    const team = await createTeamWithKey();
    const { release } = await bareRelease(team);
    const upload = await team.api.post('/api/sboms/upload', {
      releaseId: release.id,
      fileName: 'clean.json',
      content: cycloneDxSbom([{ name: 'safe', version: '1.0.0', purl: 'pkg:npm/safe@1.0.0' }]),
    });
    expect(upload.status).toBe(201);

    const { status, text: html } = await getReport(team, release.id);

    expect(status).toBe(200);
    expect(section(html, 'sbom')).toContain('clean.json');
    expect(section(html, 'inventory')).toContain('pkg:npm/safe@1.0.0');
    expect(section(html, 'sla')).toContain('No findings, so no SLA clock is running.');
    expect(section(html, 'findings')).not.toContain('<table');
  });

  it('renders a release with 10,000 components', async () => {
    const team = await createTeamWithKey();
    const { release } = await bareRelease(team);
    const components = Array.from({ length: 10_000 }, (_, index) => ({
      name: `pkg${index}`,
      version: '1.0.0',
      purl: `pkg:npm/pkg${index}@1.0.0`,
    }));
    const upload = await team.api.post('/api/sboms/upload', {
      releaseId: release.id,
      content: cycloneDxSbom(components),
    });
    expect(upload.status).toBe(201);

    const { status, text: html } = await getReport(team, release.id);

    expect(status).toBe(200);
    const inventory = section(html, 'inventory');
    expect(count(inventory, '<tr>')).toBe(10_001); // header row + one per component
    expect(inventory).toContain('pkg:npm/pkg9999@1.0.0');
    expect(inventory).not.toContain('to keep the report within size limits');
    // A Lambda proxy response is capped at 6 MB.
    expect(Buffer.byteLength(html)).toBeLessThan(6 * 1024 * 1024);
  });

  it('never emits user-supplied markup unescaped', async () => {
    const team = await createTeamWithKey();
    const markup = {
      name: '<script>alert("name")</script>',
      description: '<img src=x onerror=alert("description")>',
      vendor: '"><svg onload=alert("vendor")>',
      releaseName: '<b onmouseover=alert("release")>rel</b>',
      notes: '<iframe src="javascript:alert(\'notes\')"></iframe>',
      detail: '</td></tr><script>alert("detail")</script>',
      author: '<style>body{display:none}</style>',
      comment: '<a href="javascript:alert(\'comment\')">x</a>',
    };
    const { product, release } = await bareRelease(
      team,
      { name: markup.name, description: markup.description, vendor: markup.vendor },
      { name: markup.releaseName, notes: markup.notes },
    );
    expect(product.name).toBe(markup.name);
    const upload = await team.api.post('/api/sboms/upload', {
      releaseId: release.id,
      content: cycloneDxSbom([{ name: 'lib', version: '1.0.0', purl: 'pkg:npm/lib@1.0.0' }]),
    });
    expect(upload.status).toBe(201);
    const seeded: Seeded = await seedReleaseWithFindings(team.api, team.teamId, 1);
    const finding = seeded.findings[0];
    if (!finding) throw new Error('seed returned no finding');
    expect(
      (
        await team.api.post('/api/dispositions', {
          vulnerabilityId: finding.id,
          status: 'fixed',
          detail: markup.detail,
        })
      ).status,
    ).toBe(201);
    const vexId = (
      await team.api.post<Data<{ id: string }>>(`/api/releases/${seeded.release.id}/vex`, {
        format: 'openvex',
        author: markup.author,
      })
    ).body.data.id;
    expect((await team.api.post(`/api/vex/${vexId}/submit`, { comment: markup.comment })).status).toBe(200);
    expect(
      (
        await team.api.put(`/api/products/${seeded.product.id}`, {
          name: markup.name,
          description: markup.description,
          vendor: markup.vendor,
        })
      ).status,
    ).toBe(200);

    const reports = [(await getReport(team, release.id)).text, (await getReport(team, seeded.release.id)).text];

    for (const html of reports) {
      for (const value of Object.values(markup)) expect(html).not.toContain(value);
      expect(html).not.toMatch(/<(script|iframe|svg|img)\b/i);
      expect(html).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
      expect(html).toContain('&lt;img src=x onerror=alert(&quot;description&quot;)&gt;');
      expect(html).toContain('&quot;&gt;&lt;svg onload=alert(&quot;vendor&quot;)&gt;');
    }
    const [first, second] = reports;
    expect(first).toContain('&lt;b onmouseover=alert(&quot;release&quot;)&gt;rel&lt;/b&gt;');
    expect(second).toContain('&lt;/td&gt;&lt;/tr&gt;&lt;script&gt;alert(&quot;detail&quot;)&lt;/script&gt;');
    expect(second).toContain('&lt;style&gt;body{display:none}&lt;/style&gt;');
    expect(second).toContain('&lt;a href=&quot;javascript:alert(&#39;comment&#39;)&quot;&gt;x&lt;/a&gt;');
  });

  it("returns 404 for another team's release and for an unknown id", async () => {
    const owner = await createTeamWithKey();
    const other = await createTeamWithKey();
    const { release } = await bareRelease(owner);

    const foreign = await getReport(other, release.id);
    const unknown = await getReport(owner, '00000000-0000-4000-8000-000000000000');

    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('Plain');
    expect(unknown.status).toBe(404);
  });

  it('returns 403 for a key without compliance:read', async () => {
    const team = await createTeamWithKey();
    const { release } = await bareRelease(team);
    const limited = await addKey(team.teamId, team.memberId, ['releases:read', 'audit:read']);

    const response = await getReport(limited, release.id);

    expect(response.status).toBe(403);
    expect(response.text).toContain('compliance:read');
  });
});
