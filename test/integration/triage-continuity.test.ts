/**
 * Issue 13 items 1, 2 and 5 through HTTP against the local server: one decision
 * per (release, package at version, advisory) shared by every SBOM of the release,
 * carry-over to later releases of the same product (never across products or
 * teams) with provenance and review, and expiring decisions.
 */
import { describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { importAdvisories } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { keys } from '../../shared/service/data/keys';
import { batchWrite, queryAll, transactWrite } from '../../shared/service/data/table-client';
import { dispositionBulk } from '../../shared/service/dispositions/disposition-store';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';
import type { client } from '../support/http-client';

type Api = ReturnType<typeof client>;
interface Row {
  id: string;
  component_name: string;
  component_version: string;
  disposition?: {
    id: string;
    status: string;
    decision_state: string;
    review_required: boolean;
    expires_at: string | null;
    carried_from: { release_id: string; release_version: string; disposition_id: string } | null;
  };
}

/** `count` packages, each with one advisory affecting every version below 2.0.0. */
async function seedAdvisories(count: number) {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  const base = randomInt(1_000_000, 9_000_000);
  const names = Array.from({ length: count }, (_, index) => `carry-${suffix}-lib${index}`);
  await importAdvisories(
    names.map((name, index) => ({
      source: 'seed',
      advisory: parseOsvAdvisory({
        id: `GHSA-carry-${suffix}-${index}`,
        modified: new Date().toISOString(),
        aliases: [`CVE-2091-${base + index}`],
        summary: `Carry ${index}`,
        details: 'Seeded',
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }],
        affected: [
          {
            package: { ecosystem: 'npm', name },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
          },
        ],
      }),
    })),
  );
  return names;
}

async function product(api: Api) {
  return (await api.post<{ data: { id: string } }>('/api/products', { name: 'Carry', slug: uniqueSlug('carry') })).body
    .data;
}

async function release(api: Api, productId: string, version: string) {
  const response = await api.post<{ data: { id: string } }>(`/api/products/${productId}/releases`, { version });
  expect(response.status).toBe(201);
  return response.body.data;
}

/** Uploads and scans an SBOM of `packages` (name → version); returns its vulnerability rows by package name. */
async function upload(api: Api, releaseId: string, packages: Record<string, string>) {
  const content = cycloneDxSbom(
    Object.entries(packages).map(([name, version]) => ({ name, version, purl: `pkg:npm/${name}@${version}` })),
  );
  const uploaded = await api.post<{ data: { id: string } }>('/api/sboms/upload', {
    releaseId,
    content,
    fileName: 'bom.json',
  });
  expect(uploaded.status).toBe(201);
  const sbomId = uploaded.body.data.id;
  expect((await api.post('/api/cve-scan', { sbomId })).status).toBe(202);
  return { sbomId, rows: await rows(api, sbomId) };
}

async function rows(api: Api, sbomId: string) {
  const listed = await api.get<{
    data: Row[];
    summary: { total: number; withoutDisposition: number; notAffected: number };
  }>(`/api/sboms/${sbomId}/vulnerabilities`);
  expect(listed.status).toBe(200);
  return { byName: new Map(listed.body.data.map((row) => [row.component_name, row])), summary: listed.body.summary };
}

function row(list: { byName: Map<string, Row> }, name: string): Row {
  const found = list.byName.get(name);
  if (!found) throw new Error(`no finding for ${name}`);
  return found;
}

const NOT_AFFECTED = { status: 'not_affected', justification: 'vulnerable_code_not_present', detail: 'Not reachable.' };

describe('triage continuity', () => {
  it('keeps every decision across a re-upload and shares it with a second SBOM of the release', async () => {
    const { api } = await createTeamWithKey();
    const names = await seedAdvisories(3);
    const { id: productId } = await product(api);
    const { id: releaseId } = await release(api, productId, '1.0.0');
    const first = await upload(api, releaseId, { [names[0]!]: '1.0.0', [names[1]!]: '1.0.0' });
    const decided = await api.post('/api/dispositions', {
      vulnerabilityId: row(first.rows, names[0]!).id,
      ...NOT_AFFECTED,
    });
    expect(decided.status).toBe(201);
    const batch = await api.post('/api/dispositions/batch', {
      vulnerabilityIds: [row(first.rows, names[1]!).id],
      status: 'fixed',
    });
    expect(batch.status).toBe(200);

    // The next CI build: the same packages plus a new one.
    const second = await upload(api, releaseId, { [names[0]!]: '1.0.0', [names[1]!]: '1.0.0', [names[2]!]: '1.0.0' });
    expect(row(second.rows, names[0]!).disposition).toMatchObject({
      id: decided.body.data.id,
      status: 'not_affected',
      decision_state: 'decided',
    });
    expect(row(second.rows, names[1]!).disposition).toMatchObject({ status: 'fixed' });
    expect(row(second.rows, names[2]!).disposition).toBeUndefined();
    expect(second.rows.summary).toMatchObject({ total: 3, withoutDisposition: 1 });

    // A decision made on the second SBOM's finding is the first SBOM's decision too (one per package and advisory).
    const again = await api.post('/api/dispositions', {
      vulnerabilityId: row(second.rows, names[0]!).id,
      status: 'affected',
      response: 'update',
    });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(decided.body.data.id);
    expect(again.body.data.vulnerabilityId).toBe(row(first.rows, names[0]!).id);
    expect(row(await rows(api, first.sbomId), names[0]!).disposition).toMatchObject({
      id: decided.body.data.id,
      status: 'affected',
    });
    // A batch naming both SBOMs' findings of one decision writes it once.
    const both = await api.post('/api/dispositions/batch', {
      vulnerabilityIds: [row(first.rows, names[1]!).id, row(second.rows, names[1]!).id],
      status: 'not_affected',
      justification: 'component_not_present',
    });
    expect(both.status).toBe(200);
    const history = await api.get(`/api/dispositions/${row(second.rows, names[1]!).disposition!.id}`);
    expect(history.body.data.history).toHaveLength(2);
  });

  it('finishes a carry-over cut off between its dispositions and their history, audit and pointer when the SBOM is scanned again', async () => {
    const { api, teamId } = await createTeamWithKey();
    const names = await seedAdvisories(1);
    const { id: productId } = await product(api);
    const { id: r1 } = await release(api, productId, '1.0.0');
    const old = await upload(api, r1, { [names[0]!]: '1.0.0' });
    await api.post('/api/dispositions', { vulnerabilityId: row(old.rows, names[0]!).id, ...NOT_AFFECTED });
    const { id: r2 } = await release(api, productId, '2.0.0');
    const next = await upload(api, r2, { [names[0]!]: '1.0.0' });
    const carried = row(next.rows, names[0]!).disposition!;

    // The state a crash after the dispositions' transaction leaves: the bracket open under the SBOM's id, no side items.
    const ref = { teamId, productId, releaseId: r2 };
    await transactWrite([dispositionBulk.start(ref, next.sbomId, new Date(Date.now() + 60_000).toISOString())]);
    const history = (await queryAll({ ...keys.releaseChildrenPrefix(teamId, productId, r2) })).filter(
      (item) => item.entity === 'DispositionChange',
    );
    const audit = (await readAuditLog(teamId)).filter(
      (entry) => entry.action === 'carry' && entry.entityId === carried.id,
    );
    expect(history).toHaveLength(1);
    expect(audit).toHaveLength(1);
    await batchWrite(
      [],
      [
        keys.idPointer(teamId, carried.id),
        ...[...history, ...audit].map((item) => ({ pk: String(item.pk), sk: String(item.sk) })),
      ],
    );
    expect((await api.get(`/api/dispositions/${carried.id}`)).status).toBe(404);

    expect((await api.post('/api/cve-scan', { sbomId: next.sbomId })).status).toBe(202);
    const view = await api.get(`/api/dispositions/${carried.id}`);
    expect(view.status).toBe(200);
    expect(view.body.data.history).toHaveLength(1);
    expect(
      (await readAuditLog(teamId)).filter((entry) => entry.action === 'carry' && entry.entityId === carried.id),
    ).toHaveLength(1);
    expect(row(await rows(api, next.sbomId), names[0]!).disposition).toMatchObject({
      id: carried.id,
      decision_state: 'carried',
    });
  });

  it('carries same-version decisions to a new release, flags other versions for review under any_version, and a confirm clears the flag', async () => {
    const { api, teamId } = await createTeamWithKey();
    const names = await seedAdvisories(3);
    const { id: productId } = await product(api);
    const { id: r1 } = await release(api, productId, '1.0.0');
    const old = await upload(api, r1, { [names[0]!]: '1.0.0', [names[1]!]: '1.0.0', [names[2]!]: '1.0.0' });
    const source = await api.post('/api/dispositions', {
      vulnerabilityId: row(old.rows, names[0]!).id,
      ...NOT_AFFECTED,
    });
    await api.post('/api/dispositions', { vulnerabilityId: row(old.rows, names[1]!).id, ...NOT_AFFECTED });

    // Default setting (same_version): lib0 at the same version is carried, lib1 moved to 1.1.0 is not.
    const { id: r2 } = await release(api, productId, '2.0.0');
    const next = await upload(api, r2, { [names[0]!]: '1.0.0', [names[1]!]: '1.1.0', [names[2]!]: '1.0.0' });
    const carried = row(next.rows, names[0]!).disposition!;
    expect(carried).toMatchObject({
      status: 'not_affected',
      decision_state: 'carried',
      review_required: false,
      carried_from: { release_id: r1, release_version: '1.0.0', disposition_id: source.body.data.id },
    });
    expect(carried.id).not.toBe(source.body.data.id);
    expect(row(next.rows, names[1]!).disposition).toBeUndefined();
    expect(next.rows.summary).toMatchObject({ notAffected: 1, withoutDisposition: 2 });
    const view = await api.get(`/api/dispositions/${carried.id}`);
    expect(view.body.data).toMatchObject({
      detail: 'Not reachable.',
      carried_from: { release_id: r1, decided_by: { name: expect.any(String) } },
      review_required: false,
    });
    expect(view.body.data.history[0].changes.carriedFrom.to.dispositionId).toBe(source.body.data.id);
    const audit = await readAuditLog(teamId);
    expect(audit.some((entry) => entry.action === 'carry' && entry.entityId === carried.id)).toBe(true);

    // any_version: lib1 at 1.1.0 takes the 1.0.0 decision, flagged; it counts as undecided until confirmed.
    expect((await api.put('/api/settings', { carryOver: 'any_version' })).body.data.carryOver).toBe('any_version');
    const { id: r3 } = await release(api, productId, '3.0.0');
    const third = await upload(api, r3, { [names[0]!]: '1.0.0', [names[1]!]: '1.1.0' });
    const flagged = row(third.rows, names[1]!).disposition!;
    expect(flagged).toMatchObject({
      status: 'not_affected',
      decision_state: 'review_required',
      review_required: true,
      carried_from: { release_id: r1 },
    });
    expect(row(third.rows, names[0]!).disposition).toMatchObject({
      decision_state: 'carried',
      carried_from: { release_id: r2, disposition_id: carried.id },
    });
    expect(third.rows.summary).toMatchObject({ notAffected: 1, withoutDisposition: 1 });
    const undisposed = await api.get<{ data: Row[] }>(`/api/sboms/${third.sbomId}/vulnerabilities?status=undisposed`);
    expect(undisposed.body.data.map((entry) => entry.component_name)).toEqual([names[1]]);

    const confirmed = await api.post(`/api/dispositions/${flagged.id}/confirm`, {});
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({
      review_required: false,
      decision_state: 'carried',
      status: 'not_affected',
    });
    expect((await rows(api, third.sbomId)).summary).toMatchObject({ notAffected: 2, withoutDisposition: 0 });
    expect(
      (await readAuditLog(teamId)).some((entry) => entry.action === 'confirm' && entry.entityId === flagged.id),
    ).toBe(true);

    // An update by a member settles the review too; off carries nothing.
    const { id: r4 } = await release(api, productId, '4.0.0');
    const fourth = await upload(api, r4, { [names[1]!]: '1.2.0' });
    const flaggedAgain = row(fourth.rows, names[1]!).disposition!;
    expect(flaggedAgain.review_required).toBe(true);
    const updated = await api.put(`/api/dispositions/${flaggedAgain.id}`, { detail: 'Checked for 1.2.0.' });
    expect(updated.body.data).toMatchObject({ review_required: false, decision_state: 'carried' });
    await api.put('/api/settings', { carryOver: 'off' });
    const { id: r5 } = await release(api, productId, '5.0.0');
    expect(row((await upload(api, r5, { [names[0]!]: '1.0.0' })).rows, names[0]!).disposition).toBeUndefined();
  });

  it('never carries a decision across products or teams', async () => {
    const { api } = await createTeamWithKey();
    const other = await createTeamWithKey();
    const names = await seedAdvisories(1);
    const { id: productId } = await product(api);
    const { id: r1 } = await release(api, productId, '1.0.0');
    const decided = await upload(api, r1, { [names[0]!]: '1.0.0' });
    expect(
      (await api.post('/api/dispositions', { vulnerabilityId: row(decided.rows, names[0]!).id, ...NOT_AFFECTED }))
        .status,
    ).toBe(201);

    const { id: sibling } = await product(api);
    const { id: siblingRelease } = await release(api, sibling, '1.0.0');
    expect(
      row((await upload(api, siblingRelease, { [names[0]!]: '1.0.0' })).rows, names[0]!).disposition,
    ).toBeUndefined();
    const { id: foreign } = await product(other.api);
    const { id: foreignRelease } = await release(other.api, foreign, '1.0.0');
    expect(
      row((await upload(other.api, foreignRelease, { [names[0]!]: '1.0.0' })).rows, names[0]!).disposition,
    ).toBeUndefined();
    // The same product's next release does carry it (the test above is not vacuous).
    const { id: r2 } = await release(api, productId, '2.0.0');
    expect(row((await upload(api, r2, { [names[0]!]: '1.0.0' })).rows, names[0]!).disposition).toMatchObject({
      decision_state: 'carried',
    });
  });

  it('refuses an expiry in the past and counts an expired decision as undecided, saying why', async () => {
    const { api } = await createTeamWithKey();
    const names = await seedAdvisories(2);
    const { id: productId } = await product(api);
    const { id: releaseId } = await release(api, productId, '1.0.0');
    const { sbomId, rows: listed } = await upload(api, releaseId, { [names[0]!]: '1.0.0', [names[1]!]: '1.0.0' });
    const past = await api.post('/api/dispositions', {
      vulnerabilityId: row(listed, names[0]!).id,
      ...NOT_AFFECTED,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect(past.status).toBe(422);
    expect(past.body.error.details[0].path).toBe('expiresAt');
    expect(
      (
        await api.post('/api/dispositions', {
          vulnerabilityId: row(listed, names[0]!).id,
          ...NOT_AFFECTED,
          expiresAt: 'next tuesday',
        })
      ).status,
    ).toBe(422);

    const expiresAt = new Date(Date.now() + 3000).toISOString();
    const accepted = await api.post('/api/dispositions', {
      vulnerabilityId: row(listed, names[0]!).id,
      ...NOT_AFFECTED,
      expiresAt,
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body.data.expires_at).toBe(expiresAt);
    await api.post('/api/dispositions', { vulnerabilityId: row(listed, names[1]!).id, ...NOT_AFFECTED });
    expect((await rows(api, sbomId)).summary).toMatchObject({ notAffected: 2, withoutDisposition: 0 });

    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 200));
    const after = await rows(api, sbomId);
    expect(after.summary).toMatchObject({ notAffected: 1, withoutDisposition: 1 });
    expect(row(after, names[0]!).disposition).toMatchObject({
      status: 'not_affected',
      decision_state: 'expired',
      expires_at: expiresAt,
    });
    const undisposed = await api.get<{ data: Row[] }>(`/api/sboms/${sbomId}/vulnerabilities?status=undisposed`);
    expect(undisposed.body.data.map((entry) => entry.component_name)).toEqual([names[0]]);
    expect((await api.get(`/api/dispositions/${accepted.body.data.id}`)).body.data.decision_state).toBe('expired');
  });
});
