/**
 * GET /api/compliance/{releaseId}/report lists the CRA Article 14 cases of the release
 * (docs/compliance-report.md "Sections"): a case opened by a KEV listing, with its deadlines and the
 * submission recorded; a release the case does not list shows none.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTeamWithKey } from '../support/factories';
import { cases, importRecords, kevCatalog, osvAdvisory, product, shipped } from '../support/cra-fixtures';

const craSection = (html: string) => html.slice(html.indexOf('Article 14 cases of this release'));

describe('the compliance report and CRA cases', () => {
  it("lists the release's cases with each deadline, the submission and whether it was met", async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-cra-report-${suffix}`;
    const cve = `CVE-2093-${String(Date.now()).slice(-7)}`;
    const { api } = await createTeamWithKey();
    const onMarket = await product(api, true);
    const affected = await shipped(api, onMarket.id, '1.0.0', pkg, '1.2.0');
    const clean = await shipped(api, onMarket.id, '0.1.0', `${pkg}-other`, '1.0.0');
    await importRecords({
      'advisory.json': osvAdvisory(`GHSA-report-${suffix}`, cve, pkg),
      'kev.json': kevCatalog(cve),
    });
    const [opened] = await cases(api);
    const submittedAt = new Date().toISOString();
    const submitted = await api.post(`/api/cra/cases/${String(opened!.id)}/submissions`, {
      stage: 'early_warning',
      submitted_at: submittedAt,
      reference: 'ENISA-EW-42',
    });
    expect(submitted.status).toBe(201);

    const report = await api.get<string>(`/api/compliance/${affected.releaseId}/report`);
    expect(report.status).toBe(200);
    const html = craSection(report.text);
    expect(html).toContain(`<strong>${cve}</strong>`);
    expect(html).toContain('early warning sent · aware since');
    const minute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
    expect(html).toContain(minute(String(opened!.early_warning_due)));
    expect(html).toContain(minute(String(opened!.notification_due)));
    expect(html).toContain(`${minute(submittedAt)}<br><span class="mono small">ENISA-EW-42</span>`);
    expect(html).toMatch(/<span class="badge st-met">Met<\/span>/);
    // A report generated within a second of the awareness time is due in exactly 3 d (zero hours are left out).
    expect(html).toMatch(/<span class="badge st-partial">Due in \d+ d( \d+ h)?<\/span>/);
    expect(html).toContain('not running: no corrective or mitigating measure recorded');

    const other = await api.get<string>(`/api/compliance/${clean.releaseId}/report`);
    expect(craSection(other.text)).toContain('No CRA Article 14 case lists this release.');
  });
});
