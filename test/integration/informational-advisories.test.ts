import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

const SBOMGR = resolve(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json');

type Vulnerability = {
  advisory_id: string;
  cve_id: string;
  component_name: string;
  component_version: string;
  informational: string | null;
};

/** The RustSec notices osv-scanner reports on this SBOM against the bundled sample corpus (issue 9, item 13). */
const NOTICES = [
  'RUSTSEC-2018-0017 RUSTSEC-2018-0017 tempdir@0.3.7 unmaintained',
  'RUSTSEC-2018-0018 CVE-2018-25023 smallvec@0.6.9 unsound',
  'RUSTSEC-2019-0035 CVE-2020-25576 rand_core@0.4.0 unsound',
  'RUSTSEC-2023-0072 RUSTSEC-2023-0072 openssl@0.8.3 unsound',
  'RUSTSEC-2025-0124 RUSTSEC-2025-0124 rand_os@0.1.3 unmaintained',
];

const describeNotice = (v: Vulnerability) =>
  `${v.advisory_id} ${v.cve_id} ${v.component_name}@${v.component_version} ${v.informational}`;

describe('informational advisories (RustSec unsound / unmaintained notices)', () => {
  it('reports them marked informational by default, and hides them from the list and summary when the team asks', async () => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'sbomgr', slug: uniqueSlug('sbomgr') })).body.data;
    const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
    const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content: readFileSync(SBOMGR, 'utf8') }))
      .body.data;
    const scan = await api.post('/api/cve-scan', { sbomId: sbom.id });
    expect(scan.status).toBe(202);

    const shown = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities?perPage=500`)).body;
    const notices = (shown.data as Vulnerability[])
      .filter((v) => v.informational !== null)
      .map(describeNotice)
      .sort();
    expect(notices).toEqual(NOTICES);
    expect((shown.data as Vulnerability[]).find((v) => v.advisory_id === 'RUSTSEC-2019-0009')).toMatchObject({
      informational: null,
    });
    expect(shown.summary.total).toBe(scan.body.data.findingCount);
    expect((await api.get('/api/settings')).body.data).toMatchObject({ hideInformational: false });

    const update = await api.put('/api/settings', { hideInformational: true });
    expect(update.status).toBe(200);
    expect(update.body.data).toMatchObject({ hideInformational: true });

    const hidden = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities?perPage=500`)).body;
    expect((hidden.data as Vulnerability[]).filter((v) => v.informational !== null)).toEqual([]);
    expect(hidden.data).toHaveLength(shown.data.length - NOTICES.length);
    expect(hidden.summary).toMatchObject({
      total: shown.summary.total - NOTICES.length,
      withoutDisposition: shown.summary.withoutDisposition - NOTICES.length,
    });
    // The scan's own count is what the scan found, whatever the team shows.
    expect(hidden.scan.finding_count).toBe(scan.body.data.findingCount);
  });
});
