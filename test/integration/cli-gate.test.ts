/**
 * The client CLI's gates (docs/ci.md) run as a child process against the real local server: every gate's
 * pass and fail runs with their exit codes, and the usage / service error codes.
 */
import { describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importAdvisories, importEpss } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { addKey, createTeamWithKey, uniqueSlug } from '../support/factories';
import { baseUrl } from '../support/http-client';
import { cycloneDxSbom } from '../support/seed';
import { vexdesk, as, uploadSpring, findingsOf, decide } from '../support/cli-runs';

describe('vexdesk gate', () => {
  it('fails on severity and KEV until the findings are decided not_affected or fixed; affected still fails on severity', async () => {
    const team = await createTeamWithKey();
    const { sbomId } = await uploadSpring(team);
    const findings = await findingsOf(team, sbomId);
    const kev = findings.filter((finding) => finding.is_kev).map((finding) => finding.id);
    const high = findings.filter((finding) => finding.severity === 'HIGH').map((finding) => finding.id);

    const critical = await vexdesk(['gate', '--sbom', sbomId, '--fail-on', 'critical', '--json'], as(team));
    const kevGate = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(team));
    expect(critical.code).toBe(1);
    expect(critical.json.result).toBe('fail');
    expect(critical.json.failing.map((row: { cve_id: string }) => row.cve_id)).toEqual([
      'CVE-2022-22965',
      'CVE-2022-22965',
      'CVE-2022-22965',
    ]);
    expect(kevGate.code).toBe(1);
    expect(kevGate.stdout).toContain('gate FAILED: 3 of 6 findings');

    await decide(team, kev.slice(0, 2), 'not_affected');
    await decide(team, kev.slice(2), 'fixed');
    await decide(team, high, 'affected', { response: 'update' });

    const criticalAfter = await vexdesk(['gate', '--sbom', sbomId, '--fail-on', 'critical', '--json'], as(team));
    const kevAfter = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(team));
    const highAfter = await vexdesk(['gate', '--sbom', sbomId, '--fail-on', 'high', '--json'], as(team));
    const untriaged = await vexdesk(['gate', '--sbom', sbomId, '--untriaged'], as(team));
    expect(criticalAfter.code).toBe(0);
    expect(criticalAfter.json).toMatchObject({ result: 'pass', sbomId, failing: [] });
    expect(kevAfter.code).toBe(0);
    expect(kevAfter.stdout).toContain('gate passed');
    // Decided affected is triaged but still vulnerable: it fails on severity, not on --untriaged.
    expect(highAfter.code).toBe(1);
    expect(highAfter.json.failing).toHaveLength(3);
    expect(highAfter.json.failing.every((row: { decision: string }) => row.decision === 'affected')).toBe(true);
    expect(untriaged.code).toBe(0);
  });

  it('counts an expired decision as undecided: the finding fails --untriaged and --kev again once it expires', async () => {
    const team = await createTeamWithKey();
    const { sbomId, releaseId } = await uploadSpring(team);
    const findings = await findingsOf(team, sbomId);
    await decide(
      team,
      findings.filter((finding) => !finding.is_kev).map((finding) => finding.id),
      'not_affected',
    );
    const expiring = findings.filter((finding) => finding.is_kev).map((finding) => finding.id);
    // The first gate must finish before the decisions expire: a short window first, a longer one (decided
    // again) only when a loaded machine made the gate outlast it; the second gate waits the window out.
    let before: Awaited<ReturnType<typeof vexdesk>> | undefined;
    let expiresAt = 0;
    for (const windowMs of [3_000, 10_000, 30_000]) {
      expiresAt = Date.now() + windowMs;
      const decided = await decide(team, expiring, 'not_affected', {
        expiresAt: new Date(expiresAt).toISOString(),
      }).then(
        () => true,
        () => false, // the window ran out while deciding (422: expiresAt must be in the future)
      );
      if (!decided) continue;
      before = await vexdesk(['gate', '--release', releaseId, '--untriaged', '--kev'], as(team));
      if (Date.now() < expiresAt) break;
    }
    await new Promise((done) => setTimeout(done, Math.max(0, expiresAt + 500 - Date.now())));
    const after = await vexdesk(['gate', '--release', releaseId, '--untriaged', '--kev', '--json'], as(team));

    expect(before?.stdout).toContain('gate passed');
    expect(before?.code).toBe(0);
    expect(after.code).toBe(1);
    expect(after.json.releaseId).toBe(releaseId);
    expect(after.json.failing).toHaveLength(3);
    expect(after.json.failing[0]).toMatchObject({ decision: 'undecided', reasons: ['kev', 'untriaged'] });
  });

  it('gates on EPSS, unscored findings and --fixable-only', async () => {
    const team = await createTeamWithKey();
    const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
    const base = randomInt(1_000_000, 9_000_000);
    const cves = [`CVE-2091-${base}`, `CVE-2091-${base + 1}`];
    const names = [`cli-${suffix}-scored`, `cli-${suffix}-unscored`];
    await importAdvisories([
      // Scored critical, EPSS 0.9, fixed in 2.0.0.
      {
        source: 'test',
        advisory: parseOsvAdvisory({
          id: `GHSA-cli-${suffix}-a`,
          modified: new Date().toISOString(),
          aliases: [cves[0]],
          summary: 'scored',
          severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
          affected: [
            {
              package: { ecosystem: 'npm', name: names[0] },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
            },
          ],
        }),
      },
      // No severity from any source, no fix known.
      {
        source: 'test',
        advisory: parseOsvAdvisory({
          id: `GHSA-cli-${suffix}-b`,
          modified: new Date().toISOString(),
          aliases: [cves[1]],
          summary: 'unscored',
          affected: [
            {
              package: { ecosystem: 'npm', name: names[1] },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
            },
          ],
        }),
      },
    ]);
    await importEpss({
      modelVersion: null,
      scoreDate: null,
      skipped: 0,
      scores: new Map([[cves[0]!, { epss: 0.9, percentile: 0.99 }]]),
    });
    const file = join(mkdtempSync(join(tmpdir(), 'vexdesk-cli-')), 'bom.json');
    writeFileSync(
      file,
      cycloneDxSbom(names.map((name) => ({ name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` }))),
    );
    const uploaded = await vexdesk(
      ['upload', file, '--product', uniqueSlug('epss'), '--release', '1.0.0', '--create', '--json'],
      as(team),
    );
    expect(uploaded.code).toBe(0);
    const sbom = ['--sbom', uploaded.json.sbomId as string];

    const runs = {
      epssHigh: await vexdesk(['gate', ...sbom, '--epss', '0.5', '--json'], as(team)),
      epssAbove: await vexdesk(['gate', ...sbom, '--epss', '0.95'], as(team)),
      unscored: await vexdesk(['gate', ...sbom, '--fail-on-unscored', '--json'], as(team)),
      unscoredFixable: await vexdesk(['gate', ...sbom, '--fail-on-unscored', '--fixable-only'], as(team)),
      criticalFixable: await vexdesk(['gate', ...sbom, '--fail-on', 'critical', '--fixable-only'], as(team)),
      low: await vexdesk(['gate', ...sbom, '--fail-on', 'low', '--json'], as(team)),
    };

    expect(runs.epssHigh.code).toBe(1);
    expect(runs.epssHigh.json.failing).toEqual([
      expect.objectContaining({ cve_id: cves[0], epss_score: 0.9, reasons: ['epss 0.9'] }),
    ]);
    expect(runs.epssAbove.code).toBe(0);
    expect(runs.unscored.code).toBe(1);
    expect(runs.unscored.json.failing).toEqual([
      expect.objectContaining({ cve_id: cves[1], severity: 'NONE', reasons: ['unscored'] }),
    ]);
    expect(runs.unscoredFixable.code).toBe(0);
    expect(runs.criticalFixable.code).toBe(1);
    // An unscored finding is below every severity: only --fail-on-unscored fails closed on it.
    expect(runs.low.json.failing.map((row: { cve_id: string }) => row.cve_id)).toEqual([cves[0]]);
  });

  it.each([
    ['no condition', ['gate', '--sbom', randomUUID()]],
    ['both targets', ['gate', '--sbom', randomUUID(), '--release', randomUUID(), '--kev']],
    ['no target', ['gate', '--kev']],
    ['an unknown severity', ['gate', '--sbom', randomUUID(), '--fail-on', 'urgent']],
    ['an EPSS above 1', ['gate', '--sbom', randomUUID(), '--epss', '50']],
    ['an id that is not one', ['gate', '--sbom', 'latest', '--kev']],
    ['an unknown flag', ['gate', '--sbom', randomUUID(), '--severity', 'high']],
    ['an unknown command', ['scan']],
  ])('exits 2 on a usage error: %s', async (_name, args) => {
    const team = await createTeamWithKey();

    const run = await vexdesk(args, as(team));

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^vexdesk: /);
    expect(run.stdout).toBe('');
  });

  it('exits 2 without a service URL or a credential, and 3 when the service refuses or cannot be reached', async () => {
    const team = await createTeamWithKey();
    const { sbomId } = await uploadSpring(team);
    const reader = await addKey(team.teamId, team.memberId, ['sboms:read']);
    const other = await createTeamWithKey();

    const noUrl = await vexdesk(['whoami'], { VEXDESK_TOKEN: team.key });
    const noToken = await vexdesk(['whoami'], { VEXDESK_URL: baseUrl() });
    const plainHttp = await vexdesk(['whoami'], { VEXDESK_URL: 'http://vexdesk.example.com', VEXDESK_TOKEN: team.key });
    const badToken = await vexdesk(['gate', '--sbom', sbomId, '--kev'], {
      VEXDESK_URL: baseUrl(),
      VEXDESK_TOKEN: `vxd_${'0'.repeat(64)}`,
    });
    const noScope = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(reader));
    const otherTeam = await vexdesk(['gate', '--sbom', sbomId, '--kev'], as(other));
    const unreachable = await vexdesk(['whoami'], { VEXDESK_URL: 'http://127.0.0.1:9', VEXDESK_TOKEN: team.key });

    expect([noUrl.code, noToken.code, plainHttp.code]).toEqual([2, 2, 2]);
    expect(badToken.code).toBe(3);
    expect(badToken.stderr).toContain('401');
    expect(noScope.code).toBe(3);
    expect(noScope.stderr).toContain('403');
    expect(otherTeam.code).toBe(3);
    expect(otherTeam.stderr).toContain('404');
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('cannot reach');
  });
});
