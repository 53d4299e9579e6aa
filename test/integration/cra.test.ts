/**
 * CRA Article 14 reporting (docs/cra-reporting.md), the black-box path: a product on the EU market
 * ships a package; its advisory arrives, then CISA KEV lists its CVE. A case opens by itself with the
 * awareness time Vexdesk observed and the deadlines; drafts name what the reports need; submissions
 * move the status and are timed; a later release carrying the fix starts the final report's clock.
 * Out-of-scope products, end-of-life releases, not_affected decisions and other teams get no case.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { applyCorpusChanges } from '../../shared/service/watch/watch';
import { checkCraDeadlines } from '../../shared/service/cra/deadline-check';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cases, HOUR, kevCatalog, osvAdvisory, product, shipped } from '../support/cra-fixtures';
import { request } from '../support/http-client';
import { eventually } from '../support/webhook-receiver';

describe('CRA Article 14 cases', () => {
  it('opens a case when KEV lists an advisory of an on-market release, drafts and times the reports', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-cra-${suffix}`;
    const cve = `CVE-2097-${String(Date.now()).slice(-7)}`;
    const advisoryId = `GHSA-cra-${suffix}`;
    const { api, key } = await createTeamWithKey();
    const other = await createTeamWithKey();

    const settings = await api.put('/api/settings', {
      cra: {
        manufacturerName: 'Acme GmbH',
        contact: 'psirt@acme.example',
        mainEstablishment: 'de',
        memberStates: ['FR', 'DE', 'FR'],
      },
    });
    expect(settings.status).toBe(200);
    expect(settings.body.data.cra).toEqual({
      manufacturerName: 'Acme GmbH',
      contact: 'psirt@acme.example',
      mainEstablishment: 'DE',
      memberStates: ['DE', 'FR'],
    });
    expect((await api.put('/api/settings', { cra: { mainEstablishment: 'US' } })).status).toBe(422);

    const onMarket = await product(api, true);
    const outOfScope = await product(api, false);
    expect(outOfScope.cra_in_scope).toBe(false);
    const affected = await shipped(api, onMarket.id, '1.0.0', pkg, '1.2.0');
    const retired = await shipped(api, onMarket.id, '0.9.0', pkg, '1.1.0', { status: 'end-of-life' });
    const decided = await shipped(api, onMarket.id, '0.9.5', pkg, '1.1.5');
    await shipped(api, outOfScope.id, '1.0.0', pkg, '1.2.0');
    const elsewhere = await product(other.api, true);
    await shipped(other.api, elsewhere.id, '1.0.0', pkg, '1.2.0');

    const dir = mkdtempSync(join(tmpdir(), 'cra-'));
    writeFileSync(join(dir, 'advisory.json'), JSON.stringify(osvAdvisory(advisoryId, cve, pkg)));
    await importCorpusFiles([join(dir, 'advisory.json')]);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    // Known but not exploited: no case yet.
    expect(await cases(api)).toEqual([]);

    const [decidedFinding] = (await api.get(`/api/sboms/${decided.sbomId}/vulnerabilities`)).body.data;
    const decision = await api.post('/api/dispositions', {
      vulnerabilityId: decidedFinding.id,
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
    });
    expect(decision.status).toBeLessThan(300);

    writeFileSync(join(dir, 'kev.json'), JSON.stringify(kevCatalog(cve)));
    const importedAt = Date.now();
    await importCorpusFiles([join(dir, 'kev.json')]);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });

    const opened = await cases(api);
    expect(opened).toHaveLength(1);
    const craCase = opened[0]!;
    expect(craCase).toMatchObject({
      product_id: onMarket.id,
      vulnerability_id: cve,
      aliases: [advisoryId],
      status: 'open',
      fix_available_at: null,
      final_report_due: null,
      exploitation: { source: 'kev', kev_date_added: '2099-02-01', known_ransomware_campaign_use: 'Known' },
    });
    // Only the on-market release without a not_affected decision.
    expect(craCase.affected_releases.map((release: { release_id: string }) => release.release_id)).toEqual([
      affected.releaseId,
    ]);
    expect([retired.releaseId, decided.releaseId]).not.toContain(craCase.affected_releases[0].release_id);
    const awareAt = Date.parse(craCase.aware_at);
    expect(Math.abs(awareAt - importedAt)).toBeLessThan(60_000);
    expect(Date.parse(craCase.early_warning_due) - awareAt).toBe(24 * HOUR);
    expect(Date.parse(craCase.notification_due) - awareAt).toBe(72 * HOUR);
    // Another team's case is its own.
    const theirs = await cases(other.api);
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.id).not.toBe(craCase.id);
    expect((await other.api.get(`/api/cra/cases/${craCase.id}`)).status).toBe(404);
    expect(await cases(api, `?productId=${outOfScope.id}`)).toEqual([]);

    const events = (await api.get('/api/events?type=cra.case_opened')).body.data;
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ case_id: craCase.id, aware_at: craCase.aware_at });

    // A release scanned after the listing joins the case through its scan (right after the scan's result: a
    // request that joined the scan may answer a moment before the scan's holder has recorded it).
    const later = await shipped(api, onMarket.id, '1.1.0', pkg, '1.3.0');
    const joined = await eventually(async () => {
      const read = (await api.get(`/api/cra/cases/${craCase.id}`)).body.data as {
        affected_releases: { version: string }[];
        aware_at: string;
      };
      return read.affected_releases.length === 2 ? read : undefined;
    }, 20_000);
    expect(joined.affected_releases.map((release: { version: string }) => release.version).sort()).toEqual([
      '1.0.0',
      '1.1.0',
    ]);
    expect(joined.aware_at).toBe(craCase.aware_at);
    expect(later.releaseId).toBeDefined();

    // Drafts name the product, versions, CVE, CVSS and fixed versions; Markdown on request.
    const notification = (await api.get(`/api/cra/cases/${craCase.id}/reports/notification`)).body.data;
    expect(notification.facts).toMatchObject({
      product: { name: onMarket.name },
      affected_versions: expect.arrayContaining(['1.0.0', '1.1.0']),
      vulnerability: { id: cve, aliases: [advisoryId] },
      cvss: { score: 9.8 },
      fixed_versions: ['2.0.0'],
      member_states: ['DE', 'FR'],
      manufacturer: { name: 'Acme GmbH', main_establishment: 'DE' },
    });
    const markdown = await api.get(`/api/cra/cases/${craCase.id}/reports/early_warning?format=markdown`);
    expect(markdown.headers.get('content-type')).toContain('text/markdown');
    expect(markdown.text).toContain(cve);
    expect(markdown.text).toContain(onMarket.name);
    const byAccept = await request('GET', `/api/cra/cases/${craCase.id}/reports/final_report`, {
      key,
      headers: { Accept: 'text/markdown' },
    });
    expect(byAccept.headers.get('content-type')).toContain('text/markdown');
    expect(byAccept.text).toContain('# Final report');

    // Drafts are edited, versioned.
    const edited = await api.put(`/api/cra/cases/${craCase.id}`, {
      drafts: { early_warning: { summary: 'Our words' } },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.drafts.early_warning).toMatchObject({ version: 1, fields: { summary: 'Our words' } });
    const warning = (await api.get(`/api/cra/cases/${craCase.id}/reports/early_warning`)).body.data;
    expect(warning).toMatchObject({ draft_version: 1, fields: { summary: 'Our words' } });

    // Awareness only moves earlier, with a reason.
    expect(
      (await api.put(`/api/cra/cases/${craCase.id}`, { aware_at: new Date(awareAt - 96 * HOUR).toISOString() })).status,
    ).toBe(422);
    expect(
      (
        await api.put(`/api/cra/cases/${craCase.id}`, {
          aware_at: new Date(awareAt + HOUR).toISOString(),
          aware_at_reason: 'x',
        })
      ).status,
    ).toBe(422);

    // Submissions: in order, not in the future, timed.
    const now = new Date().toISOString();
    const future = new Date(Date.now() + HOUR).toISOString();
    const submit = (body: Record<string, unknown>) => api.post(`/api/cra/cases/${craCase.id}/submissions`, body);
    expect((await submit({ stage: 'early_warning', submitted_at: future, reference: 'EW-1' })).status).toBe(422);
    expect((await submit({ stage: 'notification', submitted_at: now, reference: 'N-1' })).status).toBe(409);
    const warned = await submit({ stage: 'early_warning', submitted_at: now, reference: 'EW-1' });
    expect(warned.status).toBe(201);
    expect(warned.body.data).toMatchObject({
      status: 'early_warning_sent',
      timeliness: { early_warning: { met: true, late_by_seconds: 0 } },
    });

    // Set four days earlier: the notification recorded now is a day late.
    const moved = await api.put(`/api/cra/cases/${craCase.id}`, {
      aware_at: new Date(awareAt - 96 * HOUR).toISOString(),
      aware_at_reason: 'A customer told us on Monday',
    });
    expect(moved.status).toBe(200);
    const notified = await submit({ stage: 'notification', submitted_at: new Date().toISOString(), reference: 'N-1' });
    expect(notified.body.data.status).toBe('notified');
    const lateBy = notified.body.data.timeliness.notification.late_by_seconds as number;
    expect(notified.body.data.timeliness.notification.met).toBe(false);
    expect(lateBy).toBeGreaterThanOrEqual(24 * 3600 - 120);
    expect(lateBy).toBeLessThanOrEqual(24 * 3600 + 120);

    // The final report needs a fix: a later release carrying the fixed version gives it.
    expect(
      (await submit({ stage: 'final_report', submitted_at: new Date().toISOString(), reference: 'F-1' })).status,
    ).toBe(409);
    const beforeFix = Date.now();
    await shipped(api, onMarket.id, '2.0.0', pkg, '2.1.0');
    const fixed = (await api.get(`/api/cra/cases/${craCase.id}`)).body.data;
    expect(fixed.fix).toMatchObject({ source: 'release', version: '2.0.0' });
    expect(Date.parse(fixed.fix_available_at)).toBeGreaterThanOrEqual(beforeFix - 1000);
    expect(Date.parse(fixed.final_report_due) - Date.parse(fixed.fix_available_at)).toBe(14 * 24 * HOUR);
    const reported = await submit({ stage: 'final_report', submitted_at: new Date().toISOString(), reference: 'F-1' });
    expect(reported.body.data).toMatchObject({
      status: 'final_report_sent',
      timeliness: { final_report: { met: true } },
    });
    const closed = await api.post(`/api/cra/cases/${craCase.id}/close`, {});
    expect(closed.body.data.status).toBe('closed');
    expect(closed.body.data.timeline.map((entry: { type: string }) => entry.type)).toEqual(
      expect.arrayContaining(['opened', 'release_affected', 'update', 'submit', 'fix_available', 'close']),
    );
  });

  it('signals deadlines approaching and missed once each, and dismisses with a reason', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-cra-clock-${suffix}`;
    const cve = `CVE-2098-${String(Date.now()).slice(-7)}`;
    const { api } = await createTeamWithKey();
    const onMarket = await product(api, true);
    const future = await product(api, true);
    await shipped(api, onMarket.id, '1.0.0', pkg, '1.0.0');
    // Not yet on the market: its release date is ahead.
    await shipped(api, future.id, '1.0.0', pkg, '1.0.0', { releaseDate: '2099-12-31' });
    const dir = mkdtempSync(join(tmpdir(), 'cra-'));
    writeFileSync(join(dir, 'advisory.json'), JSON.stringify(osvAdvisory(`GHSA-clock-${suffix}`, cve, pkg)));
    await importCorpusFiles([join(dir, 'advisory.json')]);
    await applyCorpusChanges();
    // A member marks it exploited (no KEV listing needed).
    const marked = await api.post('/api/cra/exploited', {
      vulnerability_id: cve,
      reason: 'Exploitation seen in our honeypot',
      evidence_url: 'https://intel.example/report/1',
    });
    expect(marked.status).toBe(201);
    const [craCase] = await cases(api);
    expect(marked.body.data.case_ids).toEqual([craCase!.id]);
    expect(craCase).toMatchObject({
      product_id: onMarket.id,
      exploitation: { source: 'member', evidence_url: 'https://intel.example/report/1' },
    });
    const due = Date.parse(craCase!.early_warning_due);

    const signalsOf = async () =>
      (
        (await api.get('/api/events?type=cra.deadline_approaching,cra.deadline_missed')).body.data as {
          type: string;
          data: Record<string, unknown>;
        }[]
      )
        .filter((event) => event.data.case_id === craCase!.id)
        .map(
          (event) =>
            `${event.type}:${String(event.data.stage)}:${typeof event.data.before === 'string' ? event.data.before : ''}`,
        )
        .sort();
    await checkCraDeadlines(new Date(due - 7 * HOUR).toISOString());
    expect(await signalsOf()).toEqual([]);
    await checkCraDeadlines(new Date(due - 5 * HOUR).toISOString());
    await checkCraDeadlines(new Date(due - 5 * HOUR).toISOString());
    expect(await signalsOf()).toEqual(['cra.deadline_approaching:early_warning:6h']);
    await checkCraDeadlines(new Date(due - 30 * 60 * 1000).toISOString());
    await checkCraDeadlines(new Date(due + 60 * 1000).toISOString());
    expect(await signalsOf()).toEqual([
      'cra.deadline_approaching:early_warning:1h',
      'cra.deadline_approaching:early_warning:6h',
      'cra.deadline_missed:early_warning:',
    ]);
    expect((await api.get(`/api/cra/cases/${craCase!.id}`)).body.data.timeliness.early_warning).toMatchObject({
      met: null,
    });

    // A not_affected decision asks for dismissal; it does not dismiss.
    const finding = (
      (await api.get(`/api/vulnerabilities?advisory=${cve}`)).body.data as { id: string; product_id: string }[]
    ).find((each) => each.product_id === onMarket.id);
    await api.post('/api/dispositions', {
      vulnerabilityId: finding?.id,
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
    });
    expect((await api.get(`/api/cra/cases/${craCase!.id}`)).body.data).toMatchObject({
      status: 'open',
      dismissal_suggested: { justification: 'vulnerable_code_not_in_execute_path' },
    });
    const dismissed = await api.post(`/api/cra/cases/${craCase!.id}/dismiss`, {
      reason: 'not_affected: code not in execute path',
    });
    expect(dismissed.body.data).toMatchObject({
      status: 'dismissed',
      dismissal: { reason: 'not_affected: code not in execute path' },
    });
    expect((await api.post(`/api/cra/cases/${craCase!.id}/dismiss`, { reason: 'again' })).status).toBe(409);
    expect(await cases(api, '?status=open')).toEqual([]);
  });

  it('defaults cra_in_scope to false and lets it be set', async () => {
    const { api } = await createTeamWithKey();
    const created = await api.post('/api/products', { name: 'Scope', slug: uniqueSlug('scope') });
    expect(created.body.data.cra_in_scope).toBe(false);
    const updated = await api.put(`/api/products/${created.body.data.id}`, { cra_in_scope: true });
    expect(updated.body.data.cra_in_scope).toBe(true);
    const back = await api.put(`/api/products/${created.body.data.id}`, { cra_in_scope: false });
    expect(back.body.data.cra_in_scope).toBe(false);
    expect((await api.get(`/api/products/${created.body.data.id}`)).body.data.cra_in_scope).toBe(false);
  });
});
