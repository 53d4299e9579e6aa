/**
 * Informing users from a CRA case (Art. 14(8), docs/cra-reporting.md "Informing users"): one action
 * drafts the CSAF advisory of the affected releases through the VEX workflow and links it to the case;
 * publishing it records when users were informed and where, which the final report's draft then states.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { SCOPES } from '../../shared/service/identity/scopes';
import { addKey, createTeamWithKey } from '../support/factories';
import { cases, importRecords, kevCatalog, osvAdvisory, product, shipped, type Api } from '../support/cra-fixtures';

interface InformedCase {
  id: string;
  users_informed_at: string | null;
  users_informed: {
    documents: { vex_id: string; release_id: string; version: string; published_at: string | null }[];
  };
  timeline: { type: string; detail: Record<string, unknown> }[];
}

async function publish(api: Api, vexId: string) {
  expect((await api.post(`/api/vex/${vexId}/submit`, {})).status).toBe(200);
  expect((await api.post(`/api/vex/${vexId}/approve`, {})).status).toBe(200);
  const published = await api.post(`/api/vex/${vexId}/publish`, {});
  expect(published.status).toBe(200);
  return published.body as { vexDocument: { published_at: string }; disclosure: { public_slug: string } };
}

describe('informing users from a CRA case', () => {
  it('drafts the CSAF advisory of the affected releases; its publication records when and where users were informed', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-cra-inform-${suffix}`;
    const cve = `CVE-2094-${String(Date.now()).slice(-7)}`;
    const { api, teamId, memberId } = await createTeamWithKey();
    const onMarket = await product(api, true);
    const first = await shipped(api, onMarket.id, '1.0.0', pkg, '1.2.0');
    const second = await shipped(api, onMarket.id, '1.1.0', pkg, '1.3.0');
    const unaffected = await shipped(api, onMarket.id, '2.0.0', `${pkg}-other`, '1.0.0');
    await importRecords({
      'advisory.json': osvAdvisory(`GHSA-inform-${suffix}`, cve, pkg),
      'kev.json': kevCatalog(cve),
    });
    const [opened] = await cases(api);
    const caseId = String(opened!.id);
    const inform = (body: unknown, as: Api = api) => as.post(`/api/cra/cases/${caseId}/inform-users`, body);

    // The action creates VEX documents: a credential with cra:write alone may not.
    const craOnly = await addKey(
      teamId,
      memberId,
      SCOPES.filter((scope) => scope !== 'vex:write'),
    );
    const refused = await inform({}, craOnly.api);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('vex:write');
    expect((await inform({ release_ids: [unaffected.releaseId] })).status).toBe(422);
    expect((await api.get(`/api/releases/${first.releaseId}/vex`)).body.data).toEqual([]);

    // One release first, then the rest; the same release is not drafted twice.
    const one = await inform({ release_ids: [first.releaseId], author: 'Acme PSIRT' });
    expect(one.status).toBe(201);
    expect((one.body.data as InformedCase).users_informed.documents.map((d) => d.version)).toEqual(['1.0.0']);
    const all = await inform({});
    expect(all.status).toBe(201);
    const drafted = all.body.data as InformedCase;
    expect(drafted.users_informed_at).toBeNull();
    expect(drafted.users_informed.documents.map((d) => [d.release_id, d.published_at])).toEqual([
      [first.releaseId, null],
      [second.releaseId, null],
    ]);
    expect((await inform({})).status).toBe(409);

    // Drafted as the VEX workflow's generate does: a CSAF draft of the release, stating the CVE.
    const vexId = drafted.users_informed.documents[0]!.vex_id;
    const document = (await api.get(`/api/vex/${vexId}`)).body.data;
    expect(document).toMatchObject({ format: 'csaf', workflow_status: 'draft', releaseId: first.releaseId });
    expect(JSON.stringify(document.content)).toContain(cve);

    // Published: users were informed then, at the disclosure's link.
    const { vexDocument, disclosure } = await publish(api, vexId);
    const informed = (await api.get(`/api/cra/cases/${caseId}`)).body.data as InformedCase & {
      users_informed: { documents: { disclosure_url: string | null }[] };
    };
    expect(informed.users_informed_at).toBe(vexDocument.published_at);
    expect(informed.users_informed.documents[0]).toMatchObject({
      vex_id: vexId,
      published_at: vexDocument.published_at,
      disclosure_url: expect.stringMatching(new RegExp(`/api/disclosures/${disclosure.public_slug}$`)),
    });
    expect(informed.users_informed.documents[1]?.published_at).toBeNull();
    expect(informed.timeline.map((entry) => entry.type)).toEqual(
      expect.arrayContaining(['draft_advisory', 'users_informed']),
    );

    // The later publication of the second advisory keeps the first moment.
    const later = await publish(api, drafted.users_informed.documents[1]!.vex_id);
    const both = (await api.get(`/api/cra/cases/${caseId}`)).body.data as InformedCase;
    expect(both.users_informed_at).toBe(vexDocument.published_at);
    expect(both.users_informed.documents[1]?.published_at).toBe(later.vexDocument.published_at);

    // The final report says whether and where users were informed.
    const report = (await api.get(`/api/cra/cases/${caseId}/reports/final_report`)).body.data;
    expect(report.facts.users_informed_at).toBe(vexDocument.published_at);
    expect(report.fields.users_informed).toContain(`Users were informed on ${vexDocument.published_at}`);
    expect(report.fields.users_informed).toContain(`/api/disclosures/${disclosure.public_slug}`);

    // Audited as the case's other steps.
    const audit = (await api.get(`/api/audit/export?accountId=${teamId}&entityType=cra_case`)).text;
    expect(audit).toContain(`draft_advisory,cra_case,${caseId}`);
    expect(audit).toContain(`users_informed,cra_case,${caseId}`);
  });
});
