/** Audit-coverage scenarios of the dispositions and VEX route groups. */
import { request } from '../http-client';
import { cycloneDxSbom } from '../seed';
import { dataField, ok, seeded, type Data, type Scenario, type Team, type WithId } from './scenario';

async function draftVex(team: Team) {
  const { release: seededRelease } = await seeded(team);
  const document = ok(
    await team.api.post<WithId>(`/api/releases/${seededRelease.id}/vex`, { format: 'openvex' }),
    'create VEX',
  ).data;
  return { releaseId: seededRelease.id, vexId: document.id };
}

async function submittedVex(team: Team) {
  const draft = await draftVex(team);
  ok(await team.api.post(`/api/vex/${draft.vexId}/submit`, {}), 'submit VEX');
  return draft;
}

async function approvedVex(team: Team) {
  const submitted = await submittedVex(team);
  ok(await team.api.post(`/api/vex/${submitted.vexId}/approve`, {}), 'approve VEX');
  return submitted;
}

export const triageScenarios: Record<string, Scenario> = {
  upsertDisposition: async (team) => {
    const { findings } = await seeded(team);
    return {
      act: async () => {
        const response = await team.api.post('/api/dispositions', {
          vulnerabilityId: findings[0]?.id,
          status: 'under_investigation',
        });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  batchDispositions: async (team) => {
    const { findings } = await seeded(team);
    return {
      act: async () => ({
        response: await team.api.post('/api/dispositions/batch', {
          vulnerabilityIds: findings.map((finding) => finding.id),
          status: 'fixed',
        }),
      }),
    };
  },
  importVex: async (team) => {
    const { release, findings } = await seeded(team);
    const document = {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://example.com/vex/audited',
      author: 'Supplier',
      timestamp: '2026-01-01T00:00:00Z',
      version: 1,
      statements: findings.map((finding, index) => ({
        vulnerability: { name: finding.cveId },
        products: [{ '@id': `pkg:npm/${finding.componentName}@1.${index}.0` }],
        status: 'fixed',
      })),
    };
    return {
      act: async () => ({
        response: await request('POST', `/api/releases/${release.id}/vex-imports`, {
          key: team.key,
          rawBody: JSON.stringify(document),
          headers: { 'Content-Type': 'application/json' },
        }),
        entityId: release.id,
      }),
    };
  },
  confirmDisposition: async (team) => {
    // A decision carried to a new release at another package version waits for review (carryOver any_version).
    const { product, findings } = await seeded(team);
    ok(await team.api.put('/api/settings', { carryOver: 'any_version' }), 'carry any version');
    ok(
      await team.api.post('/api/dispositions', {
        vulnerabilityId: findings[0]?.id,
        status: 'not_affected',
        justification: 'component_not_present',
      }),
      'decide',
    );
    const next = ok(
      await team.api.post<WithId>(`/api/products/${product.id}/releases`, { version: '2.0.0' }),
      'release',
    ).data;
    const name = findings[0]!.componentName;
    const sbom = ok(
      await team.api.post<WithId>('/api/sboms/upload', {
        releaseId: next.id,
        content: cycloneDxSbom([{ name, version: '1.0.1', purl: `pkg:npm/${name}@1.0.1` }]),
        fileName: 'bom.json',
      }),
      'upload',
    ).data;
    ok(await team.api.post('/api/cve-scan', { sbomId: sbom.id }), 'scan');
    const listed = ok(
      await team.api.get<Data<{ disposition?: { id: string; review_required: boolean } }[]>>(
        `/api/sboms/${sbom.id}/vulnerabilities`,
      ),
      'list',
    ).data;
    const carried = listed[0]?.disposition;
    if (!carried?.review_required) throw new Error('confirm scenario: no decision waiting for review');
    return {
      act: async () => ({
        response: await team.api.post(`/api/dispositions/${carried.id}/confirm`, {}),
        entityId: carried.id,
      }),
    };
  },
  updateDisposition: async (team) => {
    const { findings } = await seeded(team);
    const disposition = ok(
      await team.api.post<WithId>('/api/dispositions', {
        vulnerabilityId: findings[0]?.id,
        status: 'under_investigation',
      }),
      'create disposition',
    ).data;
    return {
      act: async () => ({
        response: await team.api.put(`/api/dispositions/${disposition.id}`, {
          status: 'not_affected',
          justification: 'component_not_present',
        }),
        entityId: disposition.id,
      }),
    };
  },
  createVexDocument: async (team) => {
    const { release: seededRelease } = await seeded(team);
    return {
      act: async () => {
        const response = await team.api.post(`/api/releases/${seededRelease.id}/vex`, { format: 'csaf' });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  regenerateVexDocument: async (team) => {
    const { vexId } = await draftVex(team);
    return { act: async () => ({ response: await team.api.post(`/api/vex/${vexId}/regenerate`), entityId: vexId }) };
  },
  deleteVexDocument: async (team) => {
    const { vexId } = await draftVex(team);
    return { act: async () => ({ response: await team.api.delete(`/api/vex/${vexId}`), entityId: vexId }) };
  },
  submitVexDocument: async (team) => {
    const { vexId } = await draftVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/vex/${vexId}/submit`, { comment: 'please review' }),
        entityId: vexId,
      }),
    };
  },
  approveVexDocument: async (team) => {
    const { vexId } = await submittedVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/vex/${vexId}/approve`, { comment: 'looks right' }),
        entityId: vexId,
      }),
    };
  },
  rejectVexDocument: async (team) => {
    const { vexId } = await submittedVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/vex/${vexId}/reject`, { comment: 'justification missing' }),
        entityId: vexId,
      }),
    };
  },
  publishVexDocument: async (team) => {
    const { vexId } = await approvedVex(team);
    return { act: async () => ({ response: await team.api.post(`/api/vex/${vexId}/publish`, {}), entityId: vexId }) };
  },
  unlockRelease: async (team) => {
    const { releaseId } = await submittedVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/releases/${releaseId}/unlock`, { comment: 'hotfix needed' }),
        entityId: releaseId,
      }),
    };
  },
};
