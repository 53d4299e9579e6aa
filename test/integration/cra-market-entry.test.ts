/**
 * Cases open when a release enters the EU market (docs/cra-reporting.md "When a case opens"): the
 * product put in scope, a release's status or date changed so that it is on the market. The findings
 * and the KEV listing were there before; the case opens at once, aware from the moment of the change.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTeamWithKey } from '../support/factories';
import { cases, HOUR, importRecords, kevCatalog, osvAdvisory, product, shipped } from '../support/cra-fixtures';

type CaseBody = { id: string; aware_at: string; early_warning_due: string; affected_releases: { version: string }[] };

describe('CRA cases when a release enters the market', () => {
  it('opens the case of an exploited finding when the product is put in scope, aware from that moment', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-cra-entry-${suffix}`;
    const cve = `CVE-2096-${String(Date.now()).slice(-7)}`;
    const { api } = await createTeamWithKey();
    const entering = await product(api, false);
    await shipped(api, entering.id, '1.0.0', pkg, '1.2.0');
    const retired = await shipped(api, entering.id, '0.9.0', pkg, '1.1.0');
    const upcoming = await shipped(api, entering.id, '3.0.0', pkg, '1.4.0', { releaseDate: '2099-06-01' });
    await importRecords({
      'advisory.json': osvAdvisory(`GHSA-entry-${suffix}`, cve, pkg),
      'kev.json': kevCatalog(cve),
    });
    // Exploited, but the product is not on the EU market.
    expect(await cases(api)).toEqual([]);
    // Retired after the listing reached its findings: not on the market when the product enters it.
    expect((await api.put(`/api/releases/${retired.releaseId}`, { status: 'end-of-life' })).status).toBe(200);

    const inScope = await api.put(`/api/products/${entering.id}`, { cra_in_scope: true });
    expect(inScope.status).toBe(200);
    const [opened, ...more] = (await cases(api)) as CaseBody[];
    expect(more).toEqual([]);
    expect(opened).toMatchObject({ product_id: entering.id, vulnerability_id: cve, status: 'open' });
    // Vexdesk held every fact once the product was in scope: not at the finding's detection nor the KEV import.
    expect(opened!.aware_at).toBe(inScope.body.data.updated_at);
    expect(Date.parse(opened!.early_warning_due) - Date.parse(opened!.aware_at)).toBe(24 * HOUR);
    expect(opened!.affected_releases.map((release) => release.version)).toEqual(['1.0.0']);
    const events = (await api.get('/api/events?type=cra.case_opened')).body.data as { data: { case_id: string } }[];
    expect(events.map((event) => event.data.case_id)).toEqual([opened!.id]);

    // Out of scope and back: the same case, its awareness not moved later, no second event.
    expect((await api.put(`/api/products/${entering.id}`, { cra_in_scope: false })).status).toBe(200);
    expect((await api.put(`/api/products/${entering.id}`, { cra_in_scope: true })).status).toBe(200);
    expect(((await cases(api)) as CaseBody[]).map((craCase) => [craCase.id, craCase.aware_at])).toEqual([
      [opened!.id, opened!.aware_at],
    ]);
    expect((await api.get('/api/events?type=cra.case_opened')).body.data).toHaveLength(1);

    // An end-of-life release supported again joins the case; so does a release whose date is moved into the past.
    const revived = await api.put(`/api/releases/${retired.releaseId}`, { status: 'deprecated' });
    expect(revived.status).toBe(200);
    const moved = await api.put(`/api/releases/${upcoming.releaseId}`, { releaseDate: '2026-02-01' });
    expect(moved.status).toBe(200);
    const joined = (await api.get(`/api/cra/cases/${opened!.id}`)).body.data as CaseBody & {
      timeline: { type: string; detail: { release?: string } }[];
    };
    expect(joined.affected_releases.map((release) => release.version).sort()).toEqual(['0.9.0', '1.0.0', '3.0.0']);
    expect(joined.aware_at).toBe(opened!.aware_at);
    expect(
      joined.timeline.filter((entry) => entry.type === 'release_affected').map((entry) => entry.detail.release),
    ).toEqual(['0.9.0', '3.0.0']);
  });

  it('opens a case when a release of an in-scope product reaches the market by a status or date change', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-cra-release-${suffix}`;
    const cve = `CVE-2095-${String(Date.now()).slice(-7)}`;
    const { api } = await createTeamWithKey();
    const other = await createTeamWithKey();
    const inScope = await product(api, true);
    const upcoming = await shipped(api, inScope.id, '2.0.0', pkg, '1.0.0', { releaseDate: '2099-01-01' });
    const retired = await shipped(api, inScope.id, '1.0.0', pkg, '1.0.0', { status: 'end-of-life' });
    const theirs = await product(other.api, true);
    const theirUpcoming = await shipped(other.api, theirs.id, '2.0.0', pkg, '1.0.0', { releaseDate: '2099-01-01' });
    await importRecords({
      'advisory.json': osvAdvisory(`GHSA-release-${suffix}`, cve, pkg),
      'kev.json': kevCatalog(cve),
    });
    expect(await cases(api)).toEqual([]);

    // Other changes of a release not on the market open nothing.
    expect((await api.put(`/api/releases/${upcoming.releaseId}`, { notes: 'Planned' })).status).toBe(200);
    expect((await api.put(`/api/releases/${retired.releaseId}`, { releaseDate: '2025-01-01' })).status).toBe(200);
    expect(await cases(api)).toEqual([]);

    const released = await api.put(`/api/releases/${upcoming.releaseId}`, { releaseDate: '2026-03-01' });
    expect(released.status).toBe(200);
    const [opened] = (await cases(api)) as CaseBody[];
    expect(opened!.aware_at).toBe(released.body.data.updated_at);
    expect(opened!.affected_releases.map((release) => release.version)).toEqual(['2.0.0']);
    // The other team's release is still ahead of its date: nothing there, and nothing of ours leaks.
    expect(await cases(other.api)).toEqual([]);
    expect(theirUpcoming.releaseId).not.toBe(upcoming.releaseId);
  });
});
